// The organiser's dashboard: every table, live; verify all, seal all finished, export a round.
"use strict";
(() => {
  const slug = document.body.dataset.tournament;
  const $ = (id) => document.getElementById(id);
  let reloading = false;
  bxb.listen(`/api/tournaments/${slug}/stream`, () => {
    if (!reloading) {
      reloading = true;
      setTimeout(() => location.reload(), 200); // several notes at once: one reload
    }
  }, $("live"));

  const say = (html) => { $("bulk-result").innerHTML = html; };
  $("verify-all").addEventListener("click", async () => {
    say("verifying every battle…");
    try {
      const { data } = await bxb.api("POST", `/api/tournaments/${slug}/verify`);
      const failed = Object.entries(data.failed);
      say(`<span class="${failed.length ? "bad" : "ok"}" id="verify-all-result">${data.done.length} of ${data.verified.length} battles verified</span>` +
        failed.map(([b, why]) => `<br><a href="/battles/${b}">${b.slice(0, 8)}</a>: ${bxb.esc(why)}`).join(""));
      setTimeout(() => location.reload(), 1500);
    } catch (error) {
      say(bxb.esc(error.message));
    }
  });
  if ($("seal-finished")) {
    $("seal-finished").addEventListener("click", async () => {
      try {
        const { data } = await bxb.api("POST", `/api/tournaments/${slug}/seal-finished`);
        say(`<span id="seal-all-result">${data.done.length} battles sealed</span>` +
          Object.entries(data.failed).map(([b, why]) => `<br>${b.slice(0, 8)}: ${bxb.esc(why)}`).join(""));
      } catch (error) {
        say(bxb.esc(error.message));
      }
    });
    $("export-round").addEventListener("click", () => {
      location.href = `/api/tournaments/${slug}/rounds/${$("round").value}/export`;
    });
  }
})();
