#!/usr/bin/env bash
# Installs the hosting panel's reference node agent on a Debian machine as a systemd service beside Debian's
# Caddy, which the agent drives:
#   1. installs caddy and nodejs from Debian (Node 20 or later is required),
#   2. creates the system user hosting-panel-agent,
#   3. installs the agent bundle (npm run build:agent) as /usr/lib/hosting-panel-agent/agent.mjs,
#   4. writes the agent's settings to /etc/hosting-panel-agent/agent.env (readable by the agent's user only) and
#      Caddy's initial config, caddy-initial.json, whose admin API listens where --caddy-admin says (by default a
#      unix socket in the state directory),
#   5. installs hosting-panel-agent.service and a caddy.service drop-in (Caddy runs as the agent's user and
#      resumes the agent's last config), then enables and (re)starts both.
# Running it again replaces the bundle, the settings and the units, and restarts both services.
#
#   sudo ./install.sh --secret-file /root/agent-secret --panel-url https://panel.example.com \
#     --node-id '<node id>' --agent-hostname agent.node1.example.com [--acme-email ops@example.com] [agent flags]
#
# The secret never goes on the command line (ps and the shell history show it): --secret-file FILE (its first
# line), --secret-stdin (one line on standard input), or AGENT_SECRET in the environment. Every other agent
# setting may be a flag (--listen 127.0.0.1:8790) or its environment variable (AGENT_LISTEN); flags win.
# --agent FILE installs another bundle; --no-start enables the services without (re)starting them.
# --root DIR stages the files under DIR (for an image or a package) and runs nothing on this machine: no apt-get,
# useradd, chown or systemctl; DIR/hosting-panel-agent.owners lists the owners the real install would set.
# Where systemd is not running, the files are installed and the script says how to start both by hand.
# INSTALL_SH_TEST_REAL=1 with --root is for the project's own test: a real install, but under DIR.
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
readonly DEFAULT_CADDY_ADMIN=unix/$STATE_DIR/caddy-admin.sock
readonly CADDY_INITIAL=/etc/hosting-panel-agent/caddy-initial.json

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
    if [[ ${setting%%:*} == "$1" && $1 != secret ]]; then
      echo "${setting#*:}"
      return
    fi
  done
  die "unknown flag --$1 (see docs/node-agent.md, \"Installing on a node\")"
}

secret_file=''
secret_stdin=no
while [[ $# -gt 0 ]]; do
  flag=${1#--}
  case $1 in
    --no-start)
      start=no
      shift
      continue
      ;;
    --secret-stdin)
      secret_stdin=yes
      shift
      continue
      ;;
    --secret | --secret=*)
      die "the secret is never taken on the command line (ps and the shell history show it): use --secret-file FILE or --secret-stdin (or AGENT_SECRET in the environment)"
      ;;
    --*) [[ $# -ge 2 ]] || die "$1 needs a value" ;;
    *) die "unexpected argument $1" ;;
  esac
  case $flag in
    agent) agent_file=$2 ;;
    root) root=$(cd "$2" && pwd) ;;
    secret-file) secret_file=$2 ;;
    *) value[$(variable_of "$flag")]=$2 ;;
  esac
  shift 2
done

# The secret is the first line; a trailing carriage return (a file written on Windows) is not part of it.
secret=''
if [[ -n $secret_file && $secret_stdin == yes ]]; then
  die "pass --secret-file or --secret-stdin, not both"
elif [[ -n $secret_file ]]; then
  [[ -r $secret_file ]] || die "--secret-file $secret_file cannot be read"
  IFS= read -r secret <"$secret_file" || true
  [[ -n ${secret%$'\r'} ]] || die "--secret-file $secret_file is empty: its first line is the secret"
elif [[ $secret_stdin == yes ]]; then
  IFS= read -r secret || true
  [[ -n ${secret%$'\r'} ]] || die "--secret-stdin: no secret on standard input (one line)"
fi
if [[ -n $secret ]]; then value[AGENT_SECRET]=${secret%$'\r'}; fi

for setting in "${SETTINGS[@]}"; do
  variable=${setting#*:}
  if [[ " ${REQUIRED[*]} " == *" $variable "* && -z ${value[$variable]:-} ]]; then
    [[ $variable != AGENT_SECRET ]] || die "--secret-file or --secret-stdin (or AGENT_SECRET) is required"
    die "--${setting%%:*} (or $variable) is required"
  fi
done
for variable in "${!value[@]}"; do
  [[ ${value[$variable]} != *$'\n'* ]] || die "$variable must be one line"
done
[[ -f $agent_file ]] || die "no agent bundle at $agent_file: run npm run build:agent first, or pass --agent FILE"
[[ -n $root || $EUID -eq 0 ]] || die "run as root (it installs packages, a user and systemd units)"
staging=no
if [[ -n $root && ${INSTALL_SH_TEST_REAL:-} != 1 ]]; then staging=yes; fi

# Caddy's admin API: where the agent reaches it and, through the initial config, where Caddy listens from its
# first start. agent.env always carries it, so the two cannot disagree.
value[AGENT_CADDY_ADMIN]=${value[AGENT_CADDY_ADMIN]:-$DEFAULT_CADDY_ADMIN}
admin_listen=''
case ${value[AGENT_CADDY_ADMIN]} in
  unix//*) admin_listen=${value[AGENT_CADDY_ADMIN]} ;;
  http://*)
    admin_listen=${value[AGENT_CADDY_ADMIN]#http://}
    admin_listen=${admin_listen%%/*}
    ;;
esac
[[ -n $admin_listen && $admin_listen != *[\"\\[:space:]]* ]] ||
  die "--caddy-admin must be unix//<absolute socket path> or http://<host>:<port>, not ${value[AGENT_CADDY_ADMIN]}"

# Directories outside the state directory that Caddy or the agent writes to (the admin socket's, --state-dir,
# --storage-dir): ProtectSystem=strict needs each named in ReadWritePaths=.
writable=()
socket_dir=''
if [[ $admin_listen == unix/* ]]; then socket_dir=$(dirname "${admin_listen#unix/}"); fi
for dir in "$socket_dir" "${value[AGENT_STATE_DIR]:-}" "${value[AGENT_STORAGE_DIR]:-}"; do
  [[ -n $dir && $dir != "$STATE_DIR" && $dir != "$STATE_DIR"/* && " ${writable[*]} " != *" $dir "* ]] || continue
  [[ $dir == /* && $dir != *[[:space:]]* ]] || die "$dir must be an absolute path without spaces"
  writable+=("$dir")
done

# chown on the machine; in staging, a line of the owners note instead.
owners=()
own() {
  local owner=$1 file
  shift
  if [[ $staging == yes ]]; then
    for file in "$@"; do owners+=("$owner $file"); done
  else
    chown "$owner" "${@/#/$root}"
  fi
}

node=/usr/bin/node
if [[ $staging == no ]]; then
  echo "install.sh: installing caddy and nodejs from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends caddy nodejs
  node=$(command -v node) || die "no node on the PATH after installing nodejs"
  major=$("$node" -p 'process.versions.node.split(".")[0]')
  ((major >= 20)) || die "the agent needs Node 20 or later; $node is $("$node" --version) (Debian 13 ships 20)"
  if ! getent passwd "$USER_NAME" >/dev/null; then
    useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
  fi
fi

install -D -m 0644 "$agent_file" "$root/usr/lib/hosting-panel-agent/agent.mjs"
for dir in "$STATE_DIR" "${writable[@]}"; do install -d -m 0750 "$root$dir"; done
own "$USER_NAME:$USER_NAME" "$STATE_DIR" "${writable[@]}"

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
chmod 0640 "$env_file"
printf '{"admin":{"listen":"%s"}}\n' "$admin_listen" >"$root$CADDY_INITIAL"
chmod 0640 "$root$CADDY_INITIAL"
own "root:$USER_NAME" /etc/hosting-panel-agent /etc/hosting-panel-agent/agent.env "$CADDY_INITIAL"

# `caddy run --resume` prefers the autosaved config to --config: one whose admin listens elsewhere (saved before
# the admin socket, or under another --caddy-admin) would keep Caddy where the agent no longer looks.
autosave="$root$STATE_DIR/.config/caddy/autosave.json"
if [[ -f $autosave ]] && ! grep -qF "\"listen\":\"$admin_listen\"" "$autosave"; then
  mv "$autosave" "$autosave.before-install"
  echo "install.sh: Caddy's autosaved config had its admin API elsewhere: set aside as $autosave.before-install" \
    "(the agent loads its config again when it starts)"
fi

# The units, with the node found here, and a ReadWritePaths= line per writable directory after ProtectSystem=.
write_unit() {
  NODE=$node EXTRA=$(printf 'ReadWritePaths=%s\n' "${writable[@]}") awk '
    { sub(/^ExecStart=\/usr\/bin\/node /, "ExecStart=" ENVIRON["NODE"] " ") }
    { print }
    /^ProtectSystem=strict$/ && ENVIRON["EXTRA"] != "ReadWritePaths=" { print ENVIRON["EXTRA"] }
  ' "$1" >"$2"
  chmod 0644 "$2"
}
install -d -m 0755 "$root/etc/systemd/system/caddy.service.d"
write_unit "$here/hosting-panel-agent.service" "$root/etc/systemd/system/hosting-panel-agent.service"
write_unit "$here/caddy-for-agent.conf" "$root/etc/systemd/system/caddy.service.d/hosting-panel-agent.conf"

https_port=${value[AGENT_HTTPS_LISTEN]:-:443}
https_port=${https_port##*:}
agent_url=https://${value[AGENT_HOSTNAME]}
if [[ $https_port != 443 ]]; then agent_url+=":$https_port"; fi

if [[ $staging == yes ]]; then
  {
    echo "# owner path: what install.sh sets on a real install; chown these when the tree is copied into place."
    printf '%s\n' "${owners[@]}"
  } >"$root/hosting-panel-agent.owners"
  cat <<EOF
install.sh: staged under $root; nothing ran on this machine. On the node: install caddy and nodejs (20 or
later), create the system user $USER_NAME (home $STATE_DIR), copy the tree into place and set the
owners listed in hosting-panel-agent.owners (not copied), then
  systemctl daemon-reload && systemctl enable --now caddy hosting-panel-agent
EOF
elif [[ ! -d $root/run/systemd/system ]]; then
  cat <<EOF
install.sh: systemd is not running here: the files are installed; start the agent with Caddy first, as $USER_NAME:
  runuser -u $USER_NAME -- sh -c 'umask 077; exec caddy run --resume --config $CADDY_INITIAL' &
  runuser -u $USER_NAME -- $node --env-file=/etc/hosting-panel-agent/agent.env /usr/lib/hosting-panel-agent/agent.mjs
and keep both running under a supervisor of your own.
EOF
else
  systemctl daemon-reload
  systemctl enable caddy.service hosting-panel-agent.service
  if [[ $start == yes ]]; then
    systemctl restart caddy.service
    systemctl restart hosting-panel-agent.service
  fi
fi

cat <<EOF
install.sh: done. The agent answers the panel at $agent_url through this node's Caddy once that name
resolves to this machine (Caddy's HTTP and HTTPS ports open). On the panel, enroll or update the node with
  agentUrl: $agent_url   agentHostname: ${value[AGENT_HOSTNAME]}
Logs: journalctl -u hosting-panel-agent -u caddy
EOF
