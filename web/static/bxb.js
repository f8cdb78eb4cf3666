// What every page's script shares: calling the JSON API, listening for server-sent events,
// asking for what can wait until the page is on screen, and telling a stale answer (one that
// came back after a later request's) from the one to show.
// Hand-written on purpose (no framework, nothing from another site): a few dozen lines.
"use strict";
const bxb = {
  async api(method, url, body) {
    const response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = response.headers.get("content-type") || "";
    const data = type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) {
      const error = new Error(
        data && data.message ? `${data.field}: ${data.message} (${data.rule})` : `HTTP ${response.status}`
      );
      error.status = response.status;
      error.body = data;
      throw error;
    }
    return { status: response.status, data };
  },
  // Server-sent events: `onNote` gets each note ({kind, battle, version, ...}).
  listen(url, onNote, badge) {
    const source = new EventSource(url);
    const show = (text, on) => {
      if (badge) {
        badge.textContent = text;
        badge.classList.toggle("on", on);
      }
    };
    source.onopen = () => show("live", true);
    source.onerror = () => show("reconnecting…", false);
    for (const kind of ["started", "contributed", "played", "voided", "sealed", "finished", "imported",
      "flagged", "ruled", "noted", "forked", "setup"]) {
      source.addEventListener(kind, (event) => onNote(JSON.parse(event.data)));
    }
    window.addEventListener("beforeunload", () => source.close());
    return source;
  },
  // `work` once the page is on screen (its first contentful paint, and a frame after it) and the
  // browser has a moment: what a page asks of the server once shown neither holds its first
  // paint nor takes the two cores the browser draws it with (docs/web.md, the judge's viewer on
  // long battles). A browser that does not say when it painted (or a page opened hidden, which
  // draws no frames) waits a second at most. `atPaint`: as soon as the paint is reported (the
  // frame is on screen then), not at the idle moment after the next frame.
  afterPaint(work, atPaint = false) {
    let done = false;
    const run = () => {
      if (!done) {
        done = true;
        work();
      }
    };
    const soon = () => (window.requestIdleCallback ? requestIdleCallback(run, { timeout: 200 }) : setTimeout(run, 0));
    if (window.PerformanceObserver && (PerformanceObserver.supportedEntryTypes || []).includes("paint")) {
      const observer = new PerformanceObserver((entries) => {
        if (entries.getEntriesByName("first-contentful-paint").length) {
          observer.disconnect();
          if (atPaint) setTimeout(run, 0);
          else requestAnimationFrame(soon);
        }
      });
      observer.observe({ type: "paint", buffered: true });
    }
    setTimeout(run, 1000);
  },
  // Answers that can come back out of order: two requests of one kind in flight, the older one
  // answered last (docs/web.md, stale answers). One `asking()` per kind of request a page sends;
  // `ask(...within)` gives each request its ticket, which says:
  // - `latest()`: no later request of this kind (nor of the kinds `within`) has been asked since,
  //   so its answer is still the one to show; an answer it is not is dropped;
  // - `newer()`: its answer is newer than any taken so far (then it is taken): for answers shown
  //   as they come, each no older than the one on screen, rather than only the last one asked.
  // `number`: the ticket's place in its kind (1, 2…); `asked`: how many were given; `drop()`:
  // every answer asked so far is older than the one on screen (never taken).
  asking() {
    let asked = 0;
    let taken = 0;
    const kind = {
      get asked() { return asked; },
      since() { // true while nothing of this kind has been asked from now on
        const now = asked;
        return () => now === asked;
      },
      ask(...within) {
        const number = ++asked;
        const still = within.map((other) => other.since());
        return {
          number,
          latest: () => number === asked && still.every((holds) => holds()),
          newer() {
            if (number <= taken) return false;
            taken = number;
            return true;
          },
        };
      },
      drop() { taken = asked; },
    };
    return kind;
  },
  esc(text) {
    const div = document.createElement("div");
    div.textContent = text == null ? "" : String(text);
    return div.innerHTML;
  },
};
