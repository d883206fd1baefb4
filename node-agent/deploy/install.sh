#!/usr/bin/env bash
# Installs the hosting panel's reference node agent on a Debian machine as a systemd service beside Debian's
# Caddy, which the agent drives:
#   1. installs caddy and nodejs from Debian (Node 20 or later is required),
#   2. creates the system user hosting-panel-agent,
#   3. installs the agent bundle (npm run build:agent) as /usr/lib/hosting-panel-agent/agent.mjs,
#   4. writes the agent's settings to /etc/hosting-panel-agent/agent.env (readable by the agent's user only),
#   5. installs hosting-panel-agent.service and a caddy.service drop-in (Caddy runs as the agent's user and
#      resumes the agent's last config), then enables and (re)starts both.
# Running it again replaces the bundle, the settings and the units, and restarts both services.
#
#   sudo ./install.sh --secret '<agent secret>' --panel-url https://panel.example.com --node-id '<node id>' \
#     --agent-hostname agent.node1.example.com [--acme-email ops@example.com] [any other agent flag]
#
# Every agent setting may be a flag (--listen 127.0.0.1:8790) or its environment variable (AGENT_LISTEN); flags
# win. --agent FILE installs another bundle; --root DIR installs under DIR (for packaging and for the project's
# own test of this script); --no-start enables the services without (re)starting them.
set -euo pipefail

readonly USER_NAME=hosting-panel-agent
readonly STATE_DIR=/var/lib/hosting-panel-agent
here=$(cd "$(dirname "$0")" && pwd)
agent_file="$here/../dist/agent.mjs"
root=''
start=yes

# The agent's flags and the environment variables they set, in the order agent.env lists them.
readonly SETTINGS=(
  secret:AGENT_SECRET
  panel-url:AGENT_PANEL_URL
  node-id:AGENT_NODE_ID
  agent-hostname:AGENT_HOSTNAME
  agent-issuer:AGENT_ISSUER
  acme-email:AGENT_ACME_EMAIL
  listen:AGENT_LISTEN
  ask-listen:AGENT_ASK_LISTEN
  state-dir:AGENT_STATE_DIR
  storage-dir:AGENT_STORAGE_DIR
  caddy-admin:AGENT_CADDY_ADMIN
  caddy-bin:AGENT_CADDY_BIN
  https-listen:AGENT_HTTPS_LISTEN
  http-listen:AGENT_HTTP_LISTEN
  acme-pebble:AGENT_ACME_PEBBLE
  acme-letsencrypt:AGENT_ACME_LETSENCRYPT
  pebble-ca-root:AGENT_PEBBLE_CA_ROOT
  forward-host:AGENT_FORWARD_HOST
  manage-firewall:AGENT_MANAGE_FIREWALL
  firewall-command:AGENT_FIREWALL_COMMAND
  certificate-scan-minutes:AGENT_CERTIFICATE_SCAN_MINUTES
  check-resolver:AGENT_CHECK_RESOLVER
)
readonly REQUIRED=(AGENT_SECRET AGENT_PANEL_URL AGENT_NODE_ID AGENT_HOSTNAME)

die() {
  echo "install.sh: $*" >&2
  exit 2
}

declare -A value=()
for setting in "${SETTINGS[@]}"; do
  variable=${setting#*:}
  if [[ -n ${!variable:-} ]]; then value[$variable]=${!variable}; fi
done

variable_of() {
  local setting
  for setting in "${SETTINGS[@]}"; do
    if [[ ${setting%%:*} == "$1" ]]; then
      echo "${setting#*:}"
      return
    fi
  done
  die "unknown flag --$1 (see the README's \"Running the reference node agent\")"
}

while [[ $# -gt 0 ]]; do
  flag=${1#--}
  case $1 in
    --no-start)
      start=no
      shift
      continue
      ;;
    --agent | --root | --*) [[ $# -ge 2 ]] || die "$1 needs a value" ;;
    *) die "unexpected argument $1" ;;
  esac
  case $flag in
    agent) agent_file=$2 ;;
    root) root=$(cd "$2" && pwd) ;;
    *) value[$(variable_of "$flag")]=$2 ;;
  esac
  shift 2
done

for setting in "${SETTINGS[@]}"; do
  variable=${setting#*:}
  if [[ " ${REQUIRED[*]} " == *" $variable "* && -z ${value[$variable]:-} ]]; then
    die "--${setting%%:*} (or $variable) is required"
  fi
done
for variable in "${!value[@]}"; do
  [[ ${value[$variable]} != *$'\n'* ]] || die "$variable must be one line"
done
[[ -f $agent_file ]] || die "no agent bundle at $agent_file: run npm run build:agent first, or pass --agent FILE"
[[ -n $root || $EUID -eq 0 ]] || die "run as root (it installs packages, a user and systemd units)"

echo "install.sh: installing caddy and nodejs from Debian"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends caddy nodejs
node=$(command -v node) || die "no node on the PATH after installing nodejs"
major=$("$node" -p 'process.versions.node.split(".")[0]')
((major >= 20)) || die "the agent needs Node 20 or later; $node is $("$node" --version) (Debian 13 ships 20)"

if ! getent passwd "$USER_NAME" >/dev/null; then
  useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi

install -D -m 0644 "$agent_file" "$root/usr/lib/hosting-panel-agent/agent.mjs"
install -d -m 0750 "$root$STATE_DIR"
chown "$USER_NAME:$USER_NAME" "$root$STATE_DIR"

# systemd's EnvironmentFile: one KEY="value" a line, backslashes and double quotes escaped, no expansion.
install -d -m 0750 "$root/etc/hosting-panel-agent"
env_file="$root/etc/hosting-panel-agent/agent.env"
(
  umask 077
  echo "# Written by install.sh; settings of hosting-panel-agent.service (flags of the agent, as variables)."
  for setting in "${SETTINGS[@]}"; do
    variable=${setting#*:}
    [[ -n ${value[$variable]:-} ]] || continue
    escaped=${value[$variable]//\\/\\\\}
    echo "$variable=\"${escaped//\"/\\\"}\""
  done
) >"$env_file.tmp"
mv "$env_file.tmp" "$env_file"
chown "root:$USER_NAME" "$root/etc/hosting-panel-agent" "$env_file"
chmod 0640 "$env_file"

install -d -m 0755 "$root/etc/systemd/system/caddy.service.d"
sed "s#^ExecStart=/usr/bin/node #ExecStart=$node #" "$here/hosting-panel-agent.service" \
  >"$root/etc/systemd/system/hosting-panel-agent.service"
chmod 0644 "$root/etc/systemd/system/hosting-panel-agent.service"
install -m 0644 "$here/caddy-for-agent.conf" "$root/etc/systemd/system/caddy.service.d/hosting-panel-agent.conf"

systemctl daemon-reload
systemctl enable caddy.service hosting-panel-agent.service
if [[ $start == yes ]]; then
  systemctl restart caddy.service
  systemctl restart hosting-panel-agent.service
fi

cat <<EOF
install.sh: done. The agent answers the panel at https://${value[AGENT_HOSTNAME]} through this node's Caddy once
that name resolves to this machine (ports 80 and 443 open). On the panel, enroll or update the node with
  agentUrl: https://${value[AGENT_HOSTNAME]}   agentHostname: ${value[AGENT_HOSTNAME]}
Logs: journalctl -u hosting-panel-agent -u caddy
EOF
