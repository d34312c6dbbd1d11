/**
 * The renderer's Content-Security-Policy, one for every host: only its own scripts,
 * styles and connections; no eval, no plugins, no framing.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/**
 * The same policy for a `<meta>` tag, which covers a renderer loaded from a file (no
 * headers there). `frame-ancestors` is only honoured as a header.
 */
export const META_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.split('; ')
  .filter((directive) => !directive.startsWith('frame-ancestors'))
  .join('; ');
