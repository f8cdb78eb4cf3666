// What every page's script shares: calling the JSON API, listening for server-sent events, and
// asking for what can wait until the page is on screen.
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
  // draws no frames) waits a second at most.
  afterPaint(work) {
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
          requestAnimationFrame(soon);
        }
      });
      observer.observe({ type: "paint", buffered: true });
    }
    setTimeout(run, 1000);
  },
  esc(text) {
    const div = document.createElement("div");
    div.textContent = text == null ? "" : String(text);
    return div.innerHTML;
  },
};
