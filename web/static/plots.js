// Plots on the pages: images matplotlib draws on the server (web/plots.py). A plot that cannot be
// drawn (no matplotlib on the server, odds refused) says why in its place.
"use strict";
const bxbPlots = {
  // An <img> of `url` at the end of `box`; resolves true once shown, false with the reason shown.
  show(box, url, alt) {
    const figure = document.createElement("figure");
    figure.className = "plot";
    const img = document.createElement("img");
    img.alt = alt;
    figure.append(img);
    box.append(figure);
    return new Promise((resolve) => {
      img.addEventListener("load", () => resolve(true), { once: true });
      img.addEventListener("error", async () => {
        let reason = "the plot could not be drawn";
        try {
          await bxb.api("GET", url);
        } catch (error) {
          reason = error.message;
        }
        figure.innerHTML = `<figcaption class="error plot-error">${bxb.esc(reason)}</figcaption>`;
        resolve(false);
      }, { once: true });
      img.src = url;
    });
  },
};

// The viewer's luck: each side's running luck percentile up to the step shown.
(() => {
  const button = document.getElementById("luck");
  if (!button) return;
  button.addEventListener("click", async () => {
    const box = document.getElementById("luck-result");
    const at = document.body.dataset.position;
    box.replaceChildren();
    box.dataset.state = "drawing";
    button.disabled = true;
    const note = document.createElement("p");
    note.className = "muted";
    note.textContent = "working out the luck of every roll…";
    box.append(note);
    const shown = await bxbPlots.show(box, `/api/battles/${document.body.dataset.battle}/luck/plot?upto=${at}`,
      `each side's luck percentile over the rolls up to position ${at}`);
    note.remove();
    box.dataset.state = shown ? "shown" : "refused";
    button.disabled = false;
  });
})();
