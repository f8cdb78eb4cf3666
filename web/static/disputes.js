// Settling a dispute on the pages (docs/judging.md, Disputes). At the table: a "flag" on any
// command of the log shown, with a reason, calls a judge. In the judge's viewer (viewer.js does
// the stepping; this adds to it): steps by command, the flags, rulings and notes shown on the
// event each is about, a ruling, a note, a fork previewed then written, and the battle's family
// with a diff of any two. Everything goes through the JSON API; the server renders the rest.
"use strict";
(() => {
  const body = document.body;
  const battle = body.dataset.battle;
  const $ = (id) => document.getElementById(id);
  if (!battle) return;

  // --- at the table --------------------------------------------------------------------------

  function tablePage() {
    const form = $("flag-form");
    if (!form) return;
    let command = 0;
    // a flag on every command that stands, in the rows shown (the last command and the log);
    // again on the rows a command written put in place (table.js)
    const flags = () => document.querySelectorAll(".ev-CommandIssued:not(.voided)").forEach((row) => {
      if (row.querySelector(".flag-btn")) return;
      row.insertAdjacentHTML("beforeend",
        `<button type="button" class="btn quiet flag-btn" data-command="${bxb.esc(row.dataset.command)}"` +
        ` aria-label="flag command ${bxb.esc(row.dataset.command)}">flag</button>`);
    });
    flags();
    document.addEventListener("bxb:written", flags);
    document.addEventListener("click", (event) => {
      const button = event.target.closest(".flag-btn");
      if (!button) return;
      command = Number(button.dataset.command);
      button.closest(".ev").appendChild(form);
      $("flag-what").textContent = `Why is command ${command} disputed?`;
      $("flag-error").textContent = "";
      form.hidden = false;
      form.scrollIntoView({ block: "center" });
      $("flag-reason").focus();
    });
    $("flag-cancel").addEventListener("click", () => { form.hidden = true; });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await bxb.api("POST", `/api/battles/${battle}/flags`, { command, reason: $("flag-reason").value });
        location.reload();
      } catch (error) {
        $("flag-error").textContent = error.message;
      }
    });
  }

  if (body.classList.contains("table-page")) tablePage();
})();
