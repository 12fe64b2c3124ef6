// GET /graphql in a browser: a page served by paygate itself (Apollo's default landing page loads
// its sandbox from a CDN, which fails offline). It says how to query, and runs a query against
// this endpoint with the key the developer pastes; nothing leaves the machine.
import type { ApolloServerPlugin } from "@apollo/server";

const EXAMPLE = `query Transaction($id: ID!) {
  transaction(id: $id) {
    id
    status
    initializedAmount
    paymentAmount
    paymentAddress
    paymentUri
    expiresAt
  }
}`;

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paygate GraphQL</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; color: #1a1a1a; }
  h1 { font-size: 1.5rem; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  textarea, input { width: 100%; box-sizing: border-box; font: 14px/1.4 ui-monospace, monospace; padding: .5rem; border: 1px solid #767676; border-radius: 4px; }
  textarea { min-height: 12rem; }
  button { margin-top: 1rem; font: inherit; padding: .5rem 1.25rem; border: 0; border-radius: 4px; background: #1d4ed8; color: #fff; cursor: pointer; }
  button:focus-visible, textarea:focus-visible, input:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
  pre { background: #f3f4f6; padding: .75rem; overflow: auto; border-radius: 4px; }
  output pre { min-height: 3rem; }
</style>
</head>
<body>
<main>
<h1>paygate GraphQL API</h1>
<p>POST a JSON body <code>{"query": "…", "variables": {…}}</code> to this address with
<code>Content-Type: application/json</code> and <code>Authorization: Bearer &lt;key&gt;</code>
(a public key to read and initialize transactions; a secret key, which sees the customer and initiates, is refused
from any browser, this page included: send it from your server, as with curl below). The operations are
<code>transaction(id)</code>, <code>initializeTransaction(input)</code> and <code>initiatePayment(transactionId, input)</code>;
docs/graphql.md in the repository describes them and <code>schema.graphql</code> holds the schema.</p>
<pre tabindex="0" role="region" aria-label="Example request">curl -s http://HOST/graphql -H "Content-Type: application/json" -H "Authorization: Bearer pub_test_…" \\
  -d '{"query":"{ transaction(id: \\"…\\") { id status paymentAddress } }"}'</pre>
<p>Cross-site request forgery protection: a GET request, or a POST whose Content-Type a plain HTML form could send, must
carry an <code>apollo-require-preflight: 1</code> (or <code>x-apollo-operation-name</code>) header; a POST with
<code>Content-Type: application/json</code> needs nothing more.</p>
<form id="run">
  <label for="key">API key (sent only to this server)</label>
  <input id="key" name="key" autocomplete="off" spellcheck="false" placeholder="pub_test_…">
  <label for="query">Query</label>
  <textarea id="query" name="query" spellcheck="false">${EXAMPLE}</textarea>
  <label for="variables">Variables (JSON)</label>
  <textarea id="variables" name="variables" spellcheck="false" style="min-height:4rem">{ "id": "" }</textarea>
  <button type="submit">Run</button>
</form>
<h2>Result</h2>
<output for="key query variables" aria-live="polite"><pre id="result" tabindex="0">Nothing run yet.</pre></output>
</main>
<script>
document.getElementById("run").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = document.getElementById("result");
  let variables;
  try { variables = JSON.parse(document.getElementById("variables").value || "{}"); }
  catch { result.textContent = "The variables are not valid JSON."; return; }
  const headers = { "content-type": "application/json" };
  const key = document.getElementById("key").value.trim();
  if (key) headers.authorization = "Bearer " + key;
  result.textContent = "Running…";
  try {
    const response = await fetch(location.pathname, { method: "POST", headers, body: JSON.stringify({ query: document.getElementById("query").value, variables }) });
    result.textContent = "HTTP " + response.status + "\\n" + JSON.stringify(await response.json(), null, 2);
  } catch (error) { result.textContent = "The request failed: " + error; }
});
</script>
</body>
</html>`;

export function localLandingPage(): ApolloServerPlugin {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}
