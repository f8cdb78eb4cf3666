// The table page: start a battle, give each side's value to fair dice, pick the next command
// from the legal ones, type the dice with big buttons as they are rolled, answer choices, void
// the last command with a reason. Nothing is written until a command is complete; then the page
// shows its steps and the server's receipt (the server renders them).
"use strict";
(() => {
  const body = document.body;
  const slug = body.dataset.tournament;
  const table = Number(body.dataset.table);
  const battle = body.dataset.battle || "";
  const version = Number(body.dataset.version || 0);
  const $ = (id) => document.getElementById(id);
  let reloading = false;
  const reload = () => {
    if (!reloading) {
      reloading = true;
      location.reload();
    }
  };

  // Another phone (or the judge) wrote: show the battle as it stands now.
  bxb.listen(`/api/tournaments/${slug}/tables/${table}/stream`, (note) => {
    if (note.battle !== battle || note.version > version || note.kind !== "played") reload();
  }, $("live"));

  const form = $("start-form");
  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const request = { ruleset: data.get("ruleset"), round: Number(data.get("round")) || 1 };
      if (data.get("label")) request.label = data.get("label");
      if (data.get("dice") === "seeded") {
        let seed = data.get("seed");
        if (!seed) {
          const bytes = crypto.getRandomValues(new Uint8Array(8));
          seed = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        }
        request.seed = seed;
      } else if (data.get("dice") === "fair") {
        request.fair = true;
      }
      try {
        await bxb.api("POST", `/api/tournaments/${slug}/tables/${table}/battles`, request);
        reload();
      } catch (error) {
        $("start-error").textContent = error.message;
      }
    });
  }
  if (!battle) return;

  const finish = $("finish");
  if (finish) {
    finish.addEventListener("click", async () => {
      try {
        await bxb.api("POST", `/api/battles/${battle}/finish`);
        reload();
      } catch (error) {
        $("play-error").textContent = error.message;
      }
    });
  }

  // Fair dice: each side's value, given before the first command.
  const fairForm = $("fair-form");
  if (fairForm) {
    fairForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const contributions = {};
      fairForm.querySelectorAll("input[data-side]").forEach((i) => { contributions[i.dataset.side] = i.value; });
      try {
        await bxb.api("POST", `/api/battles/${battle}/contributions`, { contributions });
        reload();
      } catch (error) {
        $("fair-error").textContent = error.message;
      }
    });
  }

  // A correction: the last command that stands is voided, with the reason (nothing is deleted).
  const voidForm = $("void-form");
  if (voidForm) {
    voidForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        await bxb.api("POST", `/api/battles/${battle}/void`, {
          command: Number(body.dataset.lastCommand), reason: $("void-reason").value, version,
        });
        reload();
      } catch (error) {
        $("void-error").textContent = error.message;
      }
    });
  }

  const legalData = $("legal-data");
  if (!legalData) return;
  const legal = JSON.parse(legalData.textContent);
  const again = JSON.parse($("again-data").textContent);
  let pending = null; // the command being put together: option, picks, dice, choices
  let roll = []; // the dice of the roll being typed

  function choose(index) {
    const option = legal[index];
    pending = { option: index, picks: {}, dice: [], choices: {} };
    document.querySelectorAll(".option").forEach((b) => b.classList.toggle("chosen", Number(b.dataset.index) === index));
    const many = Object.entries(option.options || {}).filter(([, values]) => values.length > 1);
    const picks = $("picks");
    if (!many.length) {
      picks.hidden = true;
      send();
      return;
    }
    picks.innerHTML = many.map(([name, values]) =>
      `<label>${bxb.esc(name)} <select data-pick="${bxb.esc(name)}">${values.map((v) =>
        `<option>${bxb.esc(v)}</option>`).join("")}</select></label>`).join("") +
      `<button class="btn big" id="play-option">Play</button>`;
    picks.hidden = false;
    picks.scrollIntoView({ block: "start" });
    $("play-option").addEventListener("click", () => {
      picks.querySelectorAll("select").forEach((s) => { pending.picks[s.dataset.pick] = s.value; });
      picks.hidden = true;
      send();
    });
  }

  // Once dice or choices were typed, a complete command comes back for review (nothing
  // written); "Write it" sends it again to be written, as `bxb play` asks before recording.
  async function send(write = false) {
    $("play-error").textContent = "";
    const typed = pending.dice.length > 0 || Object.keys(pending.choices).length > 0;
    try {
      const { status, data } = await bxb.api("POST", `/api/battles/${battle}/commands`, {
        version, option: pending.option, picks: pending.picks, dice: pending.dice,
        choices: pending.choices, ask: true, review: typed && !write,
      });
      if (status === 201) {
        reload();
        return;
      }
      if (data.status === "review") review(data);
      else ask(data.need);
    } catch (error) {
      $("play-error").textContent = error.message;
      if (error.status === 409) setTimeout(reload, 1500);
    }
  }

  function asked(box) {
    $("need").dataset.asked = String(Number($("need").dataset.asked || 0) + 1); // the questions asked so far: what a test waits on
    box.scrollIntoView({ block: "start" }); // the next thing to do, on screen
  }

  function review(data) {
    $("need").hidden = true;
    const issued = data.events.find((r) => r.type === "CommandIssued");
    $("review-prompt").textContent =
      `Check command ${issued ? issued.command : ""} before it is written: the dice typed ` +
      `${pending.dice.join(" ") || "(none)"}, and what they do:`;
    $("review-rows").innerHTML = data.events.map((r) =>
      `<li class="ev ev-${bxb.esc(r.type)}"><span class="pos">${r.position}</span>` +
      `<span class="text">${bxb.esc(r.text)}</span></li>`).join("");
    $("review").hidden = false;
    asked($("review"));
  }

  function ask(need) {
    $("review").hidden = true;
    $("need").hidden = false;
    $("options").classList.add("dim");
    $("need-prompt").textContent = need.prompt;
    roll = [];
    const dicePad = $("dice-pad");
    const choicePad = $("choice-pad");
    dicePad.innerHTML = "";
    choicePad.innerHTML = "";
    $("undo-die").hidden = need.kind !== "dice";
    if (need.kind === "dice") {
      const faces = Array.from({ length: need.sides }, (_, i) => i + 1);
      dicePad.innerHTML = faces.map((f) => `<button class="die" data-face="${f}">${f}</button>`).join("");
      dicePad.querySelectorAll(".die").forEach((b) => b.addEventListener("click", () => {
        roll.push(Number(b.dataset.face));
        slots(need);
        if (roll.length === need.n) {
          pending.dice.push(...roll);
          roll = [];
          send();
        }
      }));
      slots(need);
      offerAgain(need);
    } else {
      $("again").hidden = true;
      choicePad.innerHTML = need.options.map((o) =>
        `<button class="btn big answer" data-answer="${bxb.esc(o)}">${bxb.esc(o)}${o === need.default ? " (default)" : ""}</button>`).join("");
      choicePad.querySelectorAll(".answer").forEach((b) => b.addEventListener("click", () => {
        pending.choices[need.key] = b.dataset.answer;
        send();
      }));
    }
    asked($("need"));
  }

  // A voided command's dice, offered again roll by roll (the terminal offers them with Enter).
  function offerAgain(need) {
    const values = again[need.key];
    const button = $("again");
    button.hidden = !(values && values.length === need.n);
    if (button.hidden) return;
    button.textContent = `The voided command's dice: ${values.join(" ")}`;
    button.onclick = () => {
      pending.dice.push(...values);
      roll = [];
      send();
    };
  }

  function slots(need) {
    $("dice-slots").innerHTML = Array.from({ length: need.n }, (_, i) =>
      `<span class="slot${i < roll.length ? " filled" : ""}">${i < roll.length ? roll[i] : "·"}</span>`).join("");
    $("undo-die").onclick = () => { roll.pop(); slots(need); };
  }

  document.querySelectorAll(".option").forEach((b) => b.addEventListener("click", () => {
    if (!pending) choose(Number(b.dataset.index));
  }));
  $("write").addEventListener("click", () => send(true));
  $("retype").addEventListener("click", () => {
    pending.dice = [];
    pending.choices = {};
    $("review").hidden = true;
    send();
  });
  const cancel = () => {
    pending = null;
    roll = [];
    $("review").hidden = true;
    $("need").hidden = true;
    $("picks").hidden = true;
    $("options").classList.remove("dim");
    document.querySelectorAll(".option").forEach((b) => b.classList.remove("chosen"));
  };
  $("cancel").addEventListener("click", cancel);
  $("review-cancel").addEventListener("click", cancel);
})();
