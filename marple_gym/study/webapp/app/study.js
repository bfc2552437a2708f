/*
 * MARPLE whodunit web study: the jsPsych timeline, the whodunit trial plugin, and the answers.
 *
 * The answers are the desktop study's JSON Lines (marple_gym/study/responses.py) with
 * "source": "web": a session line, then one line per evidence point as soon as it is given.
 * They are kept in localStorage (a reload resumes), offered as a download at the end, and,
 * when the study was built with a post URL, posted line by line; lines the server has not
 * acknowledged are sent again until it has, so a server restart loses nothing.
 */
(function () {
  "use strict";

  const STUDY = window.MARPLE_STUDY;
  const params = new URLSearchParams(window.location.search);
  // Prolific-style query parameters; "participant" for other platforms and pilots.
  const participant = params.get("PROLIFIC_PID") || params.get("participant") || "anon-" + randomId();
  const platform = { study_id: params.get("STUDY_ID"), session_id: params.get("SESSION_ID") };
  const language = STUDY.modality !== "vision";
  // The participant's trial sequence: ?order=k, or the id's FNV-1a hash (marple_gym/study/web.py: sequence_for).
  const asked = params.get("order");
  const sequence =
    asked !== null && /^[0-9]+$/.test(asked) && Number(asked) < STUDY.sequences.length
      ? Number(asked)
      : fnv1a(participant) % STUDY.sequences.length;
  const SEED = STUDY.sequences[sequence].seed;
  const TRIALS = STUDY.sequences[sequence].views.map((view, i) => Object.assign({}, STUDY.views[view], { index: i }));
  const storeKey = "marple-study/" + STUDY.trial_set + "/" + SEED + "/" + participant;
  const RETRY_MS = 1000;

  // ---- the answers --------------------------------------------------------------------------------------
  const saved = load();
  const state = {
    client: saved.client || randomId(), // tells the server which page sent a line, with seq
    entries: saved.entries || [], // every line of the responses file, in order
    pending: saved.pending || [], // seq numbers not yet acknowledged by the results server
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

  function answered(episodeId) {
    const points = new Map();
    for (const e of state.entries) {
      if (e.type === "answer" && e.episode_id === episodeId) points.set(e.evidence_point, e.slider);
    }
    return points;
  }

  function responsesText() {
    return state.entries.map((e) => JSON.stringify(e)).join("\n") + "\n";
  }

  // ---- posting to the results server --------------------------------------------------------------------
  let flushing = false;
  let retry = null;

  async function flush() {
    if (!STUDY.post_url || flushing || !state.pending.length) return;
    flushing = true;
    const batch = state.pending.slice();
    const body = batch.map((seq) => JSON.stringify(state.entries[seq])).join("\n") + "\n";
    try {
      const reply = await fetch(STUDY.post_url, { method: "POST", body: body, headers: { "Content-Type": "text/plain" } });
      if (!reply.ok) throw new Error("HTTP " + reply.status);
      state.pending = state.pending.filter((seq) => !batch.includes(seq));
      store();
      setStatus("All answers saved.", false);
    } catch (err) {
      setStatus("Could not reach the results server; your answers are kept and will be sent again.", true);
    } finally {
      flushing = false;
      if (state.pending.length && retry === null) {
        retry = setTimeout(() => {
          retry = null;
          flush();
        }, RETRY_MS);
      }
    }
  }

  function setStatus(text, offline) {
    const el = document.getElementById("mw-status");
    if (!el) return;
    el.textContent = text;
    el.classList.toggle("mw-offline", offline);
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

  class WhodunitPlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    trial(el, params) {
      const trial = params.trial;
      const done = answered(trial.episode_id);
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
        if (s.phase === "watch") $("mw-hint").textContent = "Next question at step " + nextTau() + ".";
        if (s.phase === "ask") {
          $("mw-ask-title").textContent = "Your answer at step " + s.t + ": which agent was it?";
          $("mw-value").textContent = slider.value;
          $("mw-value").classList.toggle("mw-untouched", !s.touched);
          $("mw-submit").disabled = !s.touched;
          $("mw-submit").textContent = s.touched ? "Submit (Enter)" : "Move the slider";
        }
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
          addEntry({
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
          });
        }
        if (!open.length) {
          document.removeEventListener("keydown", onKey);
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
    version: "1.0.0",
    parameters: { trial: { type: jsPsychModule.ParameterType.OBJECT, default: undefined } },
    data: {
      episode_id: { type: jsPsychModule.ParameterType.STRING },
      trial_index: { type: jsPsychModule.ParameterType.INT },
    },
  };

  function trialHtml(trial) {
    const ticks = trial.evidence_steps
      .map((tau) => `<div class="mw-tick" data-tau="${tau}" style="left:${(100 * tau) / Math.max(trial.horizon, 1)}%"></div>`)
      .join("");
    const panel = (side, name, cls) =>
      `<figure class="mw-panel"><figcaption class="${cls}">${name}</figcaption>` +
      `<img id="mw-img-${side}" alt="${name}">` +
      (language ? `<div class="mw-caption" id="mw-cap-${side}"></div>` : "") +
      "</figure>";
    return `<div class="mw-trial">
      <div class="mw-head"><span>Trial ${trial.index + 1} of ${TRIALS.length}</span><span id="mw-step"></span></div>
      <h2 class="mw-question">${escapeHtml(trial.question)}</h2>
      <div class="mw-panels">${panel("L", "Agent A", "mw-a")}${panel("R", "Agent B", "mw-b")}</div>
      <div class="mw-progress"><div class="mw-bar" id="mw-bar"></div>${ticks}</div>
      <div class="mw-controls">
        <div id="mw-watch"><button class="jspsych-btn" id="mw-next">Next step &rsaquo;</button>
          <p class="mw-hint" id="mw-hint"></p></div>
        <div id="mw-ask" hidden><p id="mw-ask-title"></p>
          <input type="range" class="mw-slider" id="mw-slider" min="0" max="100" step="1">
          <div class="mw-labels"><span class="mw-a">definitely Agent A (0)</span><span>cannot tell (50)</span>
            <span class="mw-b">definitely Agent B (100)</span></div>
          <div class="mw-value" id="mw-value"></div>
          <button class="jspsych-btn" id="mw-submit" disabled></button></div>
      </div>
      <div class="mw-status" id="mw-status"></div>
    </div>`;
  }

  // ---- the timeline -------------------------------------------------------------------------------------
  function download() {
    const blob = new Blob([responsesText()], { type: "application/x-ndjson" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "marple-" + participant.replace(/[^A-Za-z0-9_-]/g, "_") + ".jsonl";
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  function showEnd() {
    const el = jsPsych.getDisplayElement();
    if (!state.entries.length) {
      el.innerHTML = "<div class='mw-page'><p>You chose not to take part. You may close this page.</p></div>";
      return;
    }
    const complete = STUDY.completion_url
      ? `<p><a class="jspsych-btn" id="mw-complete" href="${escapeHtml(STUDY.completion_url)}">Return to the study platform</a></p>`
      : "";
    el.innerHTML = `<div class="mw-page"><h2>All trials are done. Thank you!</h2>
      <p>Please download a copy of your answers${STUDY.post_url ? " (they were also sent to the researchers)" : " and send it to the researchers"}.</p>
      <p><button class="jspsych-btn" id="mw-download">Download your answers</button></p>${complete}
      <div class="mw-status" id="mw-status"></div></div>`;
    el.querySelector("#mw-download").addEventListener("click", download);
    flush();
  }

  const jsPsych = initJsPsych({ on_finish: showEnd });
  const started = state.entries.length > 0;
  const timeline = [];
  if (!started) {
    timeline.push({
      type: jsPsychHtmlButtonResponse,
      stimulus: `<div class="mw-page">${STUDY.pages.consent}</div>`,
      choices: ["I agree", "I do not agree"],
      on_finish: (data) => {
        if (data.response !== 0) {
          jsPsych.abortExperiment("<p>You chose not to take part. You may close this page.</p>");
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
          trial_set: STUDY.trial_set,
          started: nowIso(),
          study_id: platform.study_id,
          session_id: platform.session_id,
          user_agent: navigator.userAgent,
        });
      },
    });
  }
  timeline.push({
    type: jsPsychHtmlButtonResponse,
    stimulus: `<div class="mw-page">${STUDY.pages.instructions}</div>`,
    choices: [started ? "Continue" : "Start"],
  });
  const remaining = TRIALS.filter((t) => answered(t.episode_id).size < t.evidence_steps.length);
  remaining.forEach((trial, k) => {
    timeline.push({ type: WhodunitPlugin, trial: trial });
    if (k + 1 < remaining.length) {
      timeline.push({
        type: jsPsychHtmlButtonResponse,
        stimulus: "<p>This trial is done.</p>",
        choices: ["Next trial \u203a"],
      });
    }
  });
  window.marpleStudy = { participant: participant, sequence: sequence, state: state, responsesText: responsesText, download: download };
  flush(); // lines a closed page could not send
  jsPsych.run(timeline);
})();
