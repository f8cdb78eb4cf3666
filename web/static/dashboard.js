// The organiser's dashboard: every table at a glance, redrawn in place when any table writes
// (its rows fetched again, never the whole page); verify all, seal all finished, export a round.
"use strict";
(() => {
  const slug = document.body.dataset.tournament;
  const $ = (id) => document.getElementById(id);
  let pending = null;
  const rows = bxb.asking(); // the rows asked for last: an earlier asking answered after it is dropped
  const redraw = async () => {
    const ticket = rows.ask();
    const response = await fetch(`/tournaments/${slug}/glance`, { credentials: "same-origin" });
    const html = response.ok ? await response.text() : null;
    if (html !== null && ticket.latest()) {
      $("glance").innerHTML = html;
      $("glance").dataset.drawn = String(Number($("glance").dataset.drawn || 0) + 1); // what a test waits on
    }
  };
  const soon = () => { // several notes at once: one redraw
    if (!pending) pending = setTimeout(() => { pending = null; redraw(); }, 200);
  };
  bxb.listen(`/api/tournaments/${slug}/stream`, soon, $("live"));

  // how long since each table's last event, kept current between writes
  const ago = (at) => {
    const s = Math.max(0, Math.floor((Date.now() - Date.parse(at)) / 1000));
    return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`;
  };
  setInterval(() => {
    document.querySelectorAll("#glance td.since[data-at]").forEach((td) => {
      if (td.dataset.at) td.textContent = ago(td.dataset.at);
    });
  }, 10_000);

  const say = (html) => { $("bulk-result").innerHTML = html; };
  $("verify-all").addEventListener("click", async () => {
    say("verifying every battle…");
    try {
      const { data } = await bxb.api("POST", `/api/tournaments/${slug}/verify`);
      const failed = Object.entries(data.failed);
      say(`<span class="${failed.length ? "bad" : "ok"}" id="verify-all-result">${data.done.length} of ${data.verified.length} battles verified</span>` +
        failed.map(([b, why]) => `<br><a href="/battles/${b}">${b.slice(0, 8)}</a>: ${bxb.esc(why)}`).join(""));
      redraw();
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
