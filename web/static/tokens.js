// The judge's tokens box on the dashboard: re-issue a table's token (a lost phone; the new
// join link is shown this once) or revoke it.
"use strict";
(() => {
  const box = document.getElementById("tokens-box");
  if (!box) return;
  const slug = document.body.dataset.tournament;
  const result = document.getElementById("token-result");
  const url = () => `/api/tournaments/${slug}/tables/${document.getElementById("token-table").value}/token`;
  // The answer to the last press: an earlier one answered after it (a link a second re-issue
  // has already revoked) is dropped.
  const presses = bxb.asking();
  const act = async (method, say) => {
    const ticket = presses.ask();
    try {
      const { data } = await bxb.api(method, url());
      if (!ticket.latest()) return;
      result.className = "result ok";
      result.textContent = say(data);
    } catch (error) {
      if (!ticket.latest()) return;
      result.className = "result bad";
      result.textContent = error.message;
    }
  };
  document.getElementById("token-reissue").addEventListener("click", () => act("POST", (d) =>
    `Table ${d.table}: new join link ${location.origin}${d.link} (shown this once; the old token no longer works)`));
  document.getElementById("token-revoke").addEventListener("click", () => act("DELETE", (d) =>
    `Table ${d.table}: ${d.revoked} token(s) revoked`));
})();
