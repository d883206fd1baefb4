// The values every workerd test run sees. Each var and secret a developer's `.dev.vars` may hold is set here, so
// the pools ignore whatever `npm start` wrote there (test/node/worker-config.test.ts keeps this list complete).
export const testBindings = {
  SECRETS_KEY: 'dGVzdC1zZWNyZXRzLWtleS0zMi1ieXRlcy1sb25nISE',
  SECRETS_KEY_PREVIOUS: '',
  BOOTSTRAP_ADMIN_EMAIL: 'admin@panel.test',
  BOOTSTRAP_ADMIN_PASSWORD: 'bootstrap-password-123',
  PANEL_ORIGIN: 'https://panel.test',
  ENVIRONMENT: 'production',
  IMAGE_TAG: 'local',
  DOH_RESOLVER_URL: 'https://cloudflare-dns.com/dns-query',
  ALERT_EMAIL_FROM: 'alerts@panel.test',
  // Unset: tests that need it pass it to the Worker themselves (test/login-no-lockout.test.ts).
  TRUSTED_CLIENT_IP_HEADER: '',
}
