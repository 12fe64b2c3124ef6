// The refund claim page (issue 26; docs/refunds.md, The claim link): GET /refund/:token shows the
// refund and a form for the customer's address, POST /refund/:token takes it, once. Rendered here on
// the server, with its own stylesheet (no CDN, no script). The token in the address is the only
// credential (no cookie), so a page on another site cannot use it without knowing it; changes must
// still come from this origin, as the dashboard's (src/http/dashboard/csrf.ts).
import express, { type Response, Router } from "express";
import { fromOwnOrigin } from "./own-origin.ts";
import type { PaymentGateway } from "../core/gateway.ts";
import { fiatById } from "../core/money/currencies.ts";
import type { ClaimState } from "../core/refunds/refunds.ts";
import type { RefundRecord } from "../core/records/refunds.ts";
import { paymentNetworkOf } from "../core/transactions/view.ts";

const html = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The token is a credential: never cached, never sent on as a Referer, never framed. */
function headers(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Content-Security-Policy", CSP);
}

function page(title: string, body: string, isLive: boolean | null): string {
  const banner =
    isLive === false
      ? `<p class="test-banner" role="note"><strong>Test mode.</strong> This refund is a rehearsal on a test network: no real money moves.</p>`
      : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html(title)}</title>
<link rel="stylesheet" href="/refund/assets/claim.css">
</head>
<body>
${banner}
<main class="card">
${body}
</main>
</body>
</html>`;
}

function refusalPage(res: Response, status: number, message: string): void {
  headers(res);
  const title = status === 410 ? "This refund link can no longer be used" : "Refund link not found";
  res
    .status(status)
    .type("html")
    .send(page(title, `<h1>${html(title)}</h1>\n<p role="alert">${html(message)}</p>`, null));
}

function summary(r: RefundRecord, amount: string, coin: string): string {
  const fiat = fiatById(r.fiatCurrencyId);
  const network = paymentNetworkOf(r.transaction);
  return `<p><strong>${html(r.transaction.merchant.name)}</strong> is refunding your payment for order <code>${html(r.transaction.reference)}</code>.</p>
<dl class="facts">
<dt>Amount</dt><dd>${html(amount)} ${html(coin)}${fiat ? ` <span class="muted">(about ${html(r.fiatAmount.toFixed(fiat.decimals))} ${html(fiat.slug)})</span>` : ""}</dd>
<dt>Network</dt><dd>${html(network?.name ?? "")}</dd>
</dl>`;
}

function claimForm(res: Response, state: Extract<ClaimState, { ok: true }>, error: string | null, value: string, status = 200): void {
  const { refund: r, coin, amount } = state;
  const network = paymentNetworkOf(r.transaction);
  const describedBy = error ? "address-hint address-error" : "address-hint";
  const body = `<h1>Claim your refund</h1>
${summary(r, amount, coin.slug)}
<form method="post" novalidate>
<label for="address">Your ${html(coin.slug)} address on ${html(network?.name ?? state.network)}</label>
<p id="address-hint" class="hint">Copy it from your wallet's Receive screen. Money sent on another network is lost. It can be entered once.</p>
${error ? `<p id="address-error" class="error" role="alert">${html(error)}</p>` : ""}
<input id="address" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="${describedBy}"${error ? ' aria-invalid="true"' : ""} value="${html(value)}">
<button type="submit">Send my refund to this address</button>
</form>`;
  headers(res);
  res
    .status(status)
    .type("html")
    .send(page(`Claim your refund from ${r.transaction.merchant.name}`, body, r.isLive));
}

export function refundClaimPage(gateway: PaymentGateway): Router {
  const router = Router();

  router.get("/refund/assets/claim.css", (_req, res) => {
    res.setHeader("Cache-Control", "public, max-age=3600");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.status(200).type("css").send(CLAIM_CSS);
  });

  router.get("/refund/:token", async (req, res) => {
    const state = await gateway.refunds.refundClaim(String(req.params.token));
    if (!state.ok) return refusalPage(res, state.status, state.message);
    claimForm(res, state, null, "");
  });

  router.post("/refund/:token", express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }), async (req, res) => {
    if (!fromOwnOrigin(req, gateway.publicUrl)) return refusalPage(res, 403, "This form can only be sent from this refund page.");
    const token = String(req.params.token);
    const address: unknown = (req.body as Record<string, unknown> | undefined)?.address;
    const outcome = await gateway.refunds.claimRefund(token, address);
    if (outcome.ok) {
      const r = outcome.refund;
      headers(res);
      const body = `<h1>Thank you</h1>
<p role="status">Your refund will be sent to <code class="address">${html(r.destination ?? "")}</code>. ${html(r.transaction.merchant.name)} sends it from its wallet; it arrives once the network confirms it.</p>`;
      res
        .status(200)
        .type("html")
        .send(page("Refund address received", body, r.isLive));
      return;
    }
    if (outcome.fieldError) {
      const state = await gateway.refunds.refundClaim(token);
      if (state.ok) return claimForm(res, state, outcome.message, typeof address === "string" ? address : "", 400);
    }
    refusalPage(res, outcome.status, outcome.message);
  });

  return router;
}

/** The page's own stylesheet: readable at 375 px and on a desktop, visible focus, enough contrast (WCAG AA). */
const CLAIM_CSS = `*,*::before,*::after{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:1rem;line-height:1.5;color:#1a1a1a;background:#f4f5f7}
.test-banner{margin:0;padding:.6rem 1rem;background:#8a4b00;color:#fff;text-align:center}
.card{max-width:34rem;margin:1.5rem auto;padding:1.5rem;background:#fff;border:1px solid #d0d4da;border-radius:.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
code{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:1rem 0}
.facts dt{font-weight:600}
.facts dd{margin:0}
.muted{color:#4a4f57}
label{display:block;font-weight:600;margin-top:1rem}
.hint{margin:.25rem 0 .5rem;color:#4a4f57}
.error{margin:.25rem 0 .5rem;color:#a4161a;font-weight:600}
input{display:block;width:100%;padding:.6rem .7rem;font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;border:2px solid #5c636e;border-radius:.35rem}
input[aria-invalid="true"]{border-color:#a4161a}
button{margin-top:1rem;width:100%;padding:.75rem 1rem;font:inherit;font-weight:600;color:#fff;background:#1f4fd1;border:0;border-radius:.35rem;cursor:pointer}
button:hover{background:#173ca3}
:focus-visible{outline:3px solid #1f4fd1;outline-offset:2px}
@media (max-width:480px){.card{margin:0;border-radius:0;border-left:0;border-right:0}}
`;
