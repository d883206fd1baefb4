// The API reference at /docs: Swagger UI (the swagger-ui-dist standalone build, copied beside this file by the
// web build) rendering the panel's own OpenAPI document. A separate file, not an inline script, so the page
// runs under `script-src 'self'`. "Try it out" calls the panel from this origin, so the session cookie applies.
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Swagger UI would otherwise send the document to its public validator.
  validatorUrl: null,
})
