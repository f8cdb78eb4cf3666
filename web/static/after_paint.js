// A page's own scripts, run once it is on screen: its body's `data-after-paint` names them, run in
// that order. Carried in the page itself (the policy allows it by its hash, web/guard.py), so a
// fresh page asks the server for nothing before its first paint: run before it, the judge's
// viewer's scripts were its largest own cost there, and even bxb.js alone was a request, a
// compile and a run on the two cores its first frame is laid out and rastered on (docs/web.md,
// the judge's viewer on long battles). Once they have run, or failed to come, the page says so:
// `data-ready` on its body, what a test (or anything driving the page) waits for before it taps,
// types or listens; a script that did not come is named on the page (`data-failed`, and a line
// at its top), and what the others do still works.
"use strict";
{
  const body = document.body;
  body.dataset.loader = ""; // at once: the page's line saying its scripts never ran stays hidden
  const later = (body.dataset.afterPaint || "").split(" ").filter(Boolean);
  let asked = false;
  const ask = () => {
    if (asked || !later.length) return;
    asked = true;
    let left = later.length;
    const failed = [];
    const settled = (src) => (event) => {
      if (event.type === "error") failed.push(src.split("/").pop());
      if (--left) return;
      if (failed.length) {
        body.dataset.failed = failed.join(" ");
        const word = Object.assign(document.createElement("p"), {
          className: "card error",
          role: "alert",
          textContent: `Part of this page did not load (${failed.join(", ")}): some of its buttons `
            + "and keys may do nothing until it is loaded again.",
        });
        (document.querySelector("main") || body).prepend(word);
      }
      body.dataset.ready = "";
    };
    body.append(...later.map((src) => {
      const script = Object.assign(document.createElement("script"), { src, async: false });
      script.addEventListener("load", settled(src));
      script.addEventListener("error", settled(src));
      return script;
    }));
  };
  // As soon as the first contentful paint is reported (the frame is on screen then); a browser
  // that does not say when it painted (or a page opened hidden, which draws no frames) waits a
  // second at most.
  if (window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).includes("paint")) {
    const observer = new PerformanceObserver((entries) => {
      if (entries.getEntriesByName("first-contentful-paint").length) {
        observer.disconnect();
        setTimeout(ask, 0);
      }
    });
    observer.observe({ type: "paint", buffered: true });
  }
  setTimeout(ask, 1000);
}
