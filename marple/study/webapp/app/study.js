/*
 * MARPLE whodunit web study: the jsPsych timeline, the whodunit trial plugin, and the answers.
 *
 * The answers are the desktop study's JSON Lines (marple/study/responses.py) with
 * "source": "web": a session line, then one line per evidence point as soon as it is given
 * (practice answers with "block": "practice"; attention checks as "check" lines).
 * They are kept in localStorage (a reload resumes), offered as a download at the end, and,
 * when the study was built with a post URL, posted in batches with the study's write key;
 * lines the server has not acknowledged are sent again until it has, so a server restart
 * loses nothing. A line the server refuses (4xx) is not sent again: it stays in the download.
 *
 * The trial page fits the window: the houses are scaled so that the question, both houses,
 * the slider and Submit are on screen together from 1000 x 560 pixels up; below that, or on
 * a phone, a notice asks for a computer or a larger window.
 */
(function () {
  "use strict";

  const STUDY = window.MARPLE_STUDY;
  const params = new URLSearchParams(window.location.search);
  // Prolific-style query parameters; "participant" for other platforms and pilots.
  const participant = params.get("PROLIFIC_PID") || params.get("participant") || "anon-" + randomId();
  const platform = { study_id: params.get("STUDY_ID"), session_id: params.get("SESSION_ID") };
  const language = STUDY.modality !== "vision";
  // The participant's trial sequence: ?order=k, or the id's FNV-1a hash (marple/study/web.py: sequence_for).
  const asked = params.get("order");
  const sequence =
    asked !== null && /^[0-9]+$/.test(asked) && Number(asked) < STUDY.sequences.length
      ? Number(asked)
      : fnv1a(participant) % STUDY.sequences.length;
  const SEED = STUDY.sequences[sequence].seed;
  const TRIALS = STUDY.sequences[sequence].views.map((view, i) => Object.assign({}, STUDY.views[view], { index: i }));
  const PRACTICE = STUDY.practice.map((p, i) =>
    Object.assign({}, STUDY.views[p.view], { index: i, practice: true, answer: p.answer }),
  );
  const storeKey = "marple-study/" + STUDY.trial_set + "/" + SEED + "/" + participant;
  const MIN_WIDTH = 1000; // the smallest window the trial page fits (CSS pixels)
  const MIN_HEIGHT = 560;
  const BATCH = 100; // lines per POST (the server takes at most 200)

  // ---- the answers --------------------------------------------------------------------------------------
  const saved = load();
  const state = {
    client: saved.client || randomId(), // tells the server which page sent a line, with seq
    entries: saved.entries || [], // every line of the responses file, in order
    pending: saved.pending || [], // seq numbers not yet acknowledged by the results server
    refused: saved.refused || [], // seq numbers the results server refused (kept in the download)
  };

  function fnv1a(text) {
    let h = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(text)) {
      h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    }
    return h;
  }

  function randomId() {
    const bytes = new Uint8Array(6);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function load() {
    try {
      return JSON.parse(localStorage.getItem(storeKey)) || {};
    } catch (err) {
      return {};
    }
  }

  function store() {
    try {
      localStorage.setItem(storeKey, JSON.stringify(state));
    } catch (err) {
      // storage full or disabled: the answers still go to the server and the download
    }
  }

  function nowIso() {
    return new Date().toISOString().replace("Z", "+00:00");
  }

  function addEntry(entry) {
    entry.source = "web";
    entry.client = state.client;
    entry.seq = state.entries.length;
    state.entries.push(entry);
    if (STUDY.post_url) state.pending.push(entry.seq);
    store();
    flush();
  }

  function answered(trial) {
    const points = new Map();
    for (const e of state.entries) {
      if (e.type === "answer" && e.episode_id === trial.episode_id && !!e.block === !!trial.practice) {
        points.set(e.evidence_point, e.slider);
      }
    }
    return points;
  }

  function complete(trial) {
    return answered(trial).size >= trial.evidence_steps.length;
  }

  function checkDone(k) {
    return state.entries.some((e) => e.type === "check" && e.check === k);
  }

  function responsesText() {
    return state.entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  }

  // ---- posting to the results server --------------------------------------------------------------------
  let flushing = false;
  let retry = null;
  let backoff = 1000;

  async function flush() {
    if (!STUDY.post_url || flushing || !state.pending.length) return;
    flushing = true;
    const batch = state.pending.slice(0, BATCH);
    const body = batch.map((seq) => JSON.stringify(state.entries[seq])).join("\n") + "\n";
    let again = false;
    try {
      const reply = await fetch(STUDY.post_url, {
        method: "POST",
        body: body,
        headers: { "Content-Type": "text/plain", "X-Study-Key": STUDY.write_key || "" },
      });
      if (reply.status >= 400 && reply.status < 500) {
        // Refused: sending it again cannot help. The lines stay in the download.
        state.refused.push(...batch);
        setStatus("The results server did not accept some answers; please download your answers at the end.", true);
      } else if (!reply.ok) {
        throw new Error("HTTP " + reply.status);
      } else {
        setStatus("All answers saved.", false);
      }
      state.pending = state.pending.filter((seq) => !batch.includes(seq));
      store();
      backoff = 1000;
      again = state.pending.length > 0;
    } catch (err) {
      setStatus("Could not reach the results server; your answers are kept and will be sent again.", true);
      backoff = Math.min(2 * backoff, 30000);
    } finally {
      flushing = false;
      if (again) {
        flush();
      } else if (state.pending.length && retry === null) {
        retry = setTimeout(() => {
          retry = null;
          flush();
        }, backoff);
      }
      onFlushed();
    }
  }

  let onFlushed = () => {};

  function setStatus(text, offline) {
    const el = document.getElementById("mw-status");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("mw-offline", offline);
  }

  // ---- a window too small, or a phone -------------------------------------------------------------------
  function gate() {
    const el = document.getElementById("mw-gate");
    // A touch screen without a mouse, or a browser that says it is a phone's: a window cannot be made larger there.
    const phone =
      (window.matchMedia("(pointer: coarse)").matches && !window.matchMedia("(any-pointer: fine)").matches) ||
      (navigator.userAgentData ? navigator.userAgentData.mobile : /Mobi|Android|iPhone|iPad/.test(navigator.userAgent));
    const small = window.innerWidth < MIN_WIDTH || window.innerHeight < MIN_HEIGHT;
    document.documentElement.classList.toggle("mw-gated", phone || small);
    el.hidden = !(phone || small);
    el.innerHTML = phone
      ? "<h2>Please use a computer</h2><p>This study shows two animations side by side and needs a computer " +
        "(a laptop or desktop) with a screen at least " + MIN_WIDTH + " &times; " + MIN_HEIGHT + " pixels. " +
        "Please open the same link on a computer; nothing has been recorded on this device.</p>"
      : "<h2>Please make this window larger</h2><p>This study needs a window at least " + MIN_WIDTH + " &times; " +
        MIN_HEIGHT + " pixels (it is " + window.innerWidth + " &times; " + window.innerHeight + "). " +
        "Maximise the window, or zoom out with Ctrl and minus; the study goes on where you are.</p>";
  }

  // ---- the whodunit trial -------------------------------------------------------------------------------
  function pad3(t) {
    return String(t).padStart(3, "0");
  }

  function frameSrc(trial, side, t) {
    return trial.frames + side + pad3(t) + ".png";
  }

  function escapeHtml(text) {
    const div = document.createElement("div");
    div.textContent = text;
    return div.innerHTML;
  }

  function playSounds(trial, t) {
    for (const side of ["L", "R"]) {
      const token = trial[side].sounds[t];
      if (token) new Audio("sounds/" + side + token + ".wav").play().catch(() => {});
    }
  }

  /** Scale both houses to the room the panels have: the largest square-cell picture that fits. */
  function fitPanels(el) {
    const area = el.querySelector(".mw-panels");
    const images = Array.from(el.querySelectorAll(".mw-panel img"));
    if (!area || images.some((img) => !img.naturalWidth)) return;
    const reserved = Array.from(el.querySelector(".mw-panel").children)
      .filter((child) => child.tagName !== "IMG")
      .reduce((sum, child) => sum + child.offsetHeight, 0);
    const gap = 24;
    const height = area.clientHeight - reserved - 2;
    const width = (area.clientWidth - gap) / 2 - 2;
    for (const img of images) {
      const scale = Math.min(height / img.naturalHeight, width / img.naturalWidth);
      img.style.width = Math.floor(img.naturalWidth * scale) + "px";
      img.style.height = Math.floor(img.naturalHeight * scale) + "px";
    }
    for (const caption of el.querySelectorAll(".mw-caption")) caption.style.width = images[0].style.width;
  }

  class WhodunitPlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    trial(el, params) {
      const trial = params.trial;
      const done = answered(trial);
      const open = trial.evidence_steps.map((_, k) => k).filter((k) => !done.has(k));
      const s = { t: 0, phase: "watch", askedAt: 0, touched: false };
      const resumeSlider = done.size ? done.get(Math.max(...done.keys())) : 50;
      // Load every step of both houses now, so stepping is instant and a server outage cannot blank them.
      this.preloaded = ["L", "R"].flatMap((side) =>
        Array.from({ length: trial.horizon + 1 }, (_, t) => Object.assign(new Image(), { src: frameSrc(trial, side, t) })),
      );
      el.innerHTML = trialHtml(trial);
      const $ = (id) => el.querySelector("#" + id);
      const slider = $("mw-slider");
      const fit = () => fitPanels(el);
      for (const side of ["L", "R"]) $("mw-img-" + side).addEventListener("load", fit);
      window.addEventListener("resize", fit);

      const nextTau = () => (open.length ? trial.evidence_steps[open[0]] : null);

      const show = () => {
        $("mw-step").textContent = "Step " + s.t + " of " + trial.horizon;
        for (const side of ["L", "R"]) {
          $("mw-img-" + side).src = frameSrc(trial, side, s.t);
          if (language) {
            $("mw-cap-" + side).innerHTML =
              "&ldquo;" + escapeHtml(trial[side].intents[s.t]) + "&rdquo;<br><span class='mw-sound'>Sound: " +
              escapeHtml(trial[side].sound_words[s.t]) + "</span>";
          }
        }
        $("mw-bar").style.width = (100 * s.t) / Math.max(trial.horizon, 1) + "%";
        el.querySelectorAll(".mw-tick").forEach((tick) => {
          tick.classList.toggle("mw-seen", Number(tick.dataset.tau) <= s.t);
        });
        $("mw-watch").hidden = s.phase !== "watch";
        $("mw-ask").hidden = s.phase !== "ask";
        if (s.phase === "watch") $("mw-hint").textContent = "Space or \u2192 also step. Next question at step " + nextTau() + ".";
        if (s.phase === "ask") {
          $("mw-ask-title").textContent = "Your answer at step " + s.t + ": which agent was it?";
          $("mw-value").textContent = slider.value;
          $("mw-value").classList.toggle("mw-untouched", !s.touched);
          $("mw-submit").disabled = !s.touched;
          $("mw-submit").textContent = s.touched ? "Submit (Enter)" : "Move the slider";
        }
        fit();
      };

      const maybeAsk = () => {
        if (nextTau() === s.t) {
          s.phase = "ask";
          s.touched = false;
          s.askedAt = performance.now();
        }
      };

      const step = () => {
        if (s.phase !== "watch" || s.t >= nextTau()) return;
        s.t += 1;
        if (language) playSounds(trial, s.t);
        maybeAsk();
        show();
      };

      const submit = () => {
        if (s.phase !== "ask" || !s.touched) return;
        const rt = Math.round(performance.now() - s.askedAt);
        const value = Number(slider.value);
        while (open.length && trial.evidence_steps[open[0]] === s.t) {
          const point = open.shift();
          const answer = {
            type: "answer",
            participant: participant,
            episode_id: trial.episode_id,
            scenario: trial.scenario,
            trial_index: trial.index,
            evidence_point: point,
            tau: trial.evidence_steps[point],
            horizon: trial.horizon,
            slider: value,
            time: nowIso(),
            rt_ms: rt,
          };
          if (trial.practice) answer.block = "practice";
          addEntry(answer);
        }
        if (!open.length) {
          document.removeEventListener("keydown", onKey);
          window.removeEventListener("resize", fit);
          this.jsPsych.finishTrial({ episode_id: trial.episode_id, trial_index: trial.index });
          return;
        }
        s.phase = "watch";
        show();
      };

      const onKey = (event) => {
        if (s.phase === "watch" && (event.key === " " || event.key === "ArrowRight")) {
          event.preventDefault();
          step();
        } else if (s.phase === "ask" && event.key === "Enter") {
          event.preventDefault();
          submit();
        }
      };

      slider.value = resumeSlider;
      slider.addEventListener("input", () => {
        s.touched = true;
        show();
      });
      $("mw-next").addEventListener("click", step);
      $("mw-submit").addEventListener("click", submit);
      document.addEventListener("keydown", onKey);
      maybeAsk();
      show();
    }
  }
  WhodunitPlugin.info = {
    name: "marple-whodunit",
    version: "2.0.0",
    parameters: { trial: { type: jsPsychModule.ParameterType.OBJECT, default: undefined } },
    data: {
      episode_id: { type: jsPsychModule.ParameterType.STRING },
      trial_index: { type: jsPsychModule.ParameterType.INT },
    },
  };

  function sliderHtml() {
    return `<div class="mw-scale"><span class="mw-a">definitely<br>Agent A (0)</span>
        <input type="range" class="mw-slider" id="mw-slider" min="0" max="100" step="1" value="50">
        <span class="mw-b">definitely<br>Agent B (100)</span></div>`;
  }

  function trialHtml(trial) {
    const ticks = trial.evidence_steps
      .map((tau) => `<div class="mw-tick" data-tau="${tau}" style="left:${(100 * tau) / Math.max(trial.horizon, 1)}%"></div>`)
      .join("");
    const panel = (side, name, cls) =>
      `<figure class="mw-panel"><figcaption class="${cls}">${name}</figcaption>` +
      `<img id="mw-img-${side}" alt="${name}">` +
      (language ? `<div class="mw-caption" id="mw-cap-${side}"></div>` : "") +
      "</figure>";
    const counter = trial.practice
      ? `Practice trial ${trial.index + 1} of ${PRACTICE.length} (not scored)`
      : `Trial ${trial.index + 1} of ${TRIALS.length}`;
    return `<div class="mw-trial">
      <div class="mw-head"><span>${counter}</span>
        <h2 class="mw-question">${escapeHtml(trial.question)}</h2><span id="mw-step"></span></div>
      <div class="mw-panels">${panel("L", "Agent A", "mw-a")}${panel("R", "Agent B", "mw-b")}</div>
      <div class="mw-progress"><div class="mw-bar" id="mw-bar"></div>${ticks}</div>
      <div class="mw-controls">
        <div id="mw-watch"><button class="jspsych-btn mw-main" id="mw-next">Next step &rsaquo;</button>
          <p class="mw-hint" id="mw-hint"></p></div>
        <div id="mw-ask" hidden><p class="mw-ask-title"><span id="mw-ask-title"></span>
          <span class="mw-value" id="mw-value"></span></p>${sliderHtml()}
          <button class="jspsych-btn mw-main" id="mw-submit" disabled></button></div>
      </div>
      <div class="mw-status" id="mw-status"></div>
    </div>`;
  }

  // ---- an attention check: move the slider to the end the page names ------------------------------------
  class CheckPlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    trial(el, params) {
      const { k, expected } = params;
      const end = expected === "A" ? "all the way to <b class='mw-a'>definitely Agent A (0)</b>" : "all the way to <b class='mw-b'>definitely Agent B (100)</b>";
      el.innerHTML = `<div class="mw-page mw-check"><h2>Attention check</h2>
        <p>To show that you are reading, please move the slider ${end}, then press Submit.</p>
        ${sliderHtml()}<p><button class="jspsych-btn mw-main" id="mw-submit" disabled>Move the slider</button></p></div>`;
      const slider = el.querySelector("#mw-slider");
      const button = el.querySelector("#mw-submit");
      const askedAt = performance.now();
      slider.addEventListener("input", () => {
        button.disabled = false;
        button.textContent = "Submit";
      });
      button.addEventListener("click", () => {
        addEntry({
          type: "check",
          participant: participant,
          check: k,
          expected: expected,
          slider: Number(slider.value),
          time: nowIso(),
          rt_ms: Math.round(performance.now() - askedAt),
        });
        this.jsPsych.finishTrial({ check: k });
      });
    }
  }
  CheckPlugin.info = {
    name: "marple-attention-check",
    version: "1.0.0",
    parameters: {
      k: { type: jsPsychModule.ParameterType.INT, default: 0 },
      expected: { type: jsPsychModule.ParameterType.STRING, default: "A" },
    },
    data: { check: { type: jsPsychModule.ParameterType.INT } },
  };

  // ---- the pages around the trials ----------------------------------------------------------------------
  function download() {
    const blob = new Blob([responsesText()], { type: "application/x-ndjson" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "marple-" + participant.replace(/[^A-Za-z0-9_-]/g, "_") + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function returnBlock(back, label) {
    if (!back) return "";
    const code = back.code ? `<p>Your code: <b class="mw-code" id="mw-code">${escapeHtml(back.code)}</b></p>` : "";
    return `${code}<p><a class="jspsych-btn mw-main" id="mw-return" href="${escapeHtml(back.url)}">${label}</a></p>`;
  }

  function showDeclined() {
    const el = jsPsych.getDisplayElement();
    const back = STUDY.no_consent;
    el.innerHTML = `<div class="mw-page"><h2>You chose not to take part</h2><p>Nothing was recorded.
      ${back ? "Please return to the study platform with the code below." : "You may close this page."}</p>
      ${returnBlock(back, "Return to the study platform")}</div>`;
  }

  function showEnd() {
    const el = jsPsych.getDisplayElement();
    if (!state.entries.length) return showDeclined();
    const posted = !!STUDY.post_url;
    el.innerHTML = `<div class="mw-page"><h2>All trials are done. Thank you!</h2>
      <p id="mw-saving">Saving your last answers&hellip;</p>
      <div id="mw-back" hidden>${returnBlock(STUDY.completion, "Return to the study platform")}</div>
      <p>${posted ? "Your answers were sent to the researchers; you may also keep a copy." : "Please download your answers and send them to the researchers."}</p>
      <p><button class="jspsych-btn" id="mw-download">Download your answers</button></p>
      <div class="mw-status" id="mw-status"></div></div>`;
    el.querySelector("#mw-download").addEventListener("click", download);
    // The way back to the platform (and its code) once every answer is saved, or refused and so in the download.
    onFlushed = () => {
      if (posted && state.pending.length) return;
      document.getElementById("mw-back").hidden = false;
      document.getElementById("mw-saving").hidden = true;
    };
    onFlushed();
    flush();
  }

  const jsPsych = initJsPsych({ on_finish: showEnd });
  const started = state.entries.length > 0;
  const page = (html, button) => ({
    type: jsPsychHtmlButtonResponse,
    stimulus: `<div class="mw-page">${html}</div>`,
    choices: [button],
  });
  const timeline = [];
  if (!started) {
    timeline.push({
      type: jsPsychHtmlButtonResponse,
      stimulus: `<div class="mw-page">${STUDY.pages.consent}</div>`,
      choices: ["I agree", "I do not agree"],
      on_finish: (data) => {
        if (data.response !== 0) {
          jsPsych.abortExperiment("");
          return;
        }
        addEntry({
          type: "session",
          participant: participant,
          seed: SEED,
          sequence: sequence,
          dataset: STUDY.dataset,
          scenario: STUDY.scenario,
          modality: STUDY.modality,
          trials: TRIALS.map((t) => t.episode_id),
          practice: PRACTICE.map((t) => t.episode_id),
          trial_set: STUDY.trial_set,
          started: nowIso(),
          study_id: platform.study_id,
          session_id: platform.session_id,
          user_agent: navigator.userAgent,
        });
      },
    });
  }
  timeline.push(page(STUDY.pages.instructions, started ? "Continue" : "Start"));
  const practiceLeft = PRACTICE.filter((t) => !complete(t));
  practiceLeft.forEach((trial, k) => {
    timeline.push({ type: WhodunitPlugin, trial: trial });
    const last = k + 1 === practiceLeft.length;
    const next = last ? `<p>The practice is over. Now the ${TRIALS.length} scored trials begin.</p>` : "";
    timeline.push(page(`<h2>Practice trial done</h2><p>${escapeHtml(trial.answer)}</p>${next}`, last ? "Start the trials \u203a" : "Next \u203a"));
  });
  const steps = [];
  TRIALS.forEach((trial, i) => {
    STUDY.checks.forEach((check, k) => {
      if (check.after === i && !checkDone(k)) steps.push({ type: CheckPlugin, k: k, expected: check.expected });
    });
    if (!complete(trial)) steps.push({ type: WhodunitPlugin, trial: trial });
  });
  steps.forEach((step, k) => {
    timeline.push(step);
    if (step.type === WhodunitPlugin && k + 1 < steps.length) timeline.push(page("<p>This trial is done.</p>", "Next trial \u203a"));
  });
  window.marpleStudy = {
    participant: participant,
    sequence: sequence,
    state: state,
    responsesText: responsesText,
    download: download,
  };
  window.addEventListener("resize", gate);
  gate();
  flush(); // lines a closed page could not send
  jsPsych.run(timeline);
})();
