/*
 * MARPLE web study: the trial pages of the belief-question family (two options) and of the expectation-trial
 * family (a surprise slider). study.js builds the timeline, the pages around it and the answers' journey to the
 * server; it calls marpleFamilyPlugin(family, api) for the plugin of a study whose STUDY.family is one of these.
 *
 * Each page writes one line per item (marple/study/responses.py): a "choice" line for a question
 * ("choice": "a" or "b", or with a confidence slider "slider": 0 = surely (a) .. 100 = surely (b)) and a
 * "rating" line for a trial ("slider": 0 = not surprising at all .. 100 = very surprising). The page is not
 * told which test of a trial it shows; the server writes that into the line.
 */
window.marpleFamilyPlugin = function (family, api) {
  "use strict";

  const { addEntry, participant, nowIso, escapeHtml, total, study } = api;
  const ParameterType = jsPsychModule.ParameterType;

  function pad(n, width) {
    return String(n).padStart(width, "0");
  }

  function counter(trial) {
    return (family === "beliefs" ? "Question " : "Trial ") + (trial.index + 1) + " of " + total;
  }

  /** A 0-100 slider whose Submit is enabled once it has been moved; ``onSubmit(value, rt_ms)``. */
  function slider(el, left, right, onSubmit) {
    const box = el.querySelector("#mf-slider-box");
    box.innerHTML = `<div class="mw-scale"><span>${left}</span>
        <input type="range" class="mw-slider" id="mw-slider" min="0" max="100" step="1" value="50">
        <span>${right}</span></div><span class="mw-value mw-untouched" id="mw-value">50</span>
        <button class="jspsych-btn mw-main" id="mw-submit" disabled>Move the slider</button>`;
    const input = box.querySelector("#mw-slider");
    const button = box.querySelector("#mw-submit");
    const value = box.querySelector("#mw-value");
    const askedAt = performance.now();
    input.addEventListener("input", () => {
      value.textContent = input.value;
      value.classList.remove("mw-untouched");
      button.disabled = false;
      button.textContent = "Submit";
    });
    button.addEventListener("click", () => onSubmit(Number(input.value), Math.round(performance.now() - askedAt)));
  }

  // ---- a belief question: the story, stills of the house, two options ---------------------------------------
  class BeliefPlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    trial(el, params) {
      const q = params.trial;
      const askedAt = performance.now();
      const stills = q.steps.map((t, i) => ({ t: t, src: q.frames + pad(i, 2) + ".png" }));
      const thumbs = stills
        .map((s, i) => `<figure class="mf-thumb" data-i="${i}"><img src="${s.src}" alt="step ${s.t}"><figcaption>${s.t}</figcaption></figure>`)
        .join("");
      const option = (k) => `<b>(${"ab"[k]})</b> ${escapeHtml(q.options[k])}`;
      const answer = study.confidence
        ? `<p class="mf-option-text">${option(0)}</p><p class="mf-option-text">${option(1)}</p><div id="mf-slider-box"></div>`
        : `<div class="mf-options"><button class="jspsych-btn mf-option" id="mf-a">${option(0)}</button>
           <button class="jspsych-btn mf-option" id="mf-b">${option(1)}</button></div>`;
      el.innerHTML = `<div class="mf-trial mf-beliefs">
        <div class="mw-head"><span>${counter(q)}</span><span></span><span></span></div>
        <div class="mf-body">
          <div class="mf-pictures"><img id="mf-big" alt="the apartment"><p class="mf-caption" id="mf-caption"></p>
            <div class="mf-strip">${thumbs}</div><p class="mf-legend">${escapeHtml(q.legend)}</p></div>
          <div class="mf-story"><h3>What's inside the apartment</h3><p>${escapeHtml(q.house)}</p>
            <h3>What ${escapeHtml(q.who)} did</h3><p id="mf-actions">${escapeHtml(q.actions)}</p></div>
        </div>
        <div class="mf-ask"><p class="mf-question" id="mf-question">${escapeHtml(q.question)}</p>${answer}</div>
        <div class="mw-status" id="mw-status"></div></div>`;
      const big = el.querySelector("#mf-big");
      const show = (i) => {
        big.src = stills[i].src;
        el.querySelector("#mf-caption").textContent =
          "Step " + stills[i].t + (i === stills.length - 1 ? " (now)" : "") + ": picture " + (i + 1) + " of " + stills.length;
        el.querySelectorAll(".mf-thumb").forEach((f) => f.classList.toggle("mf-shown", Number(f.dataset.i) === i));
      };
      el.querySelectorAll(".mf-thumb").forEach((f) => f.addEventListener("click", () => show(Number(f.dataset.i))));
      show(stills.length - 1);

      const finish = (given, rt) => {
        addEntry(
          Object.assign(
            { type: "choice", participant: participant, question_id: q.item, trial_index: q.index },
            given,
            { time: nowIso(), rt_ms: rt },
          ),
        );
        this.jsPsych.finishTrial({ question_id: q.item, trial_index: q.index });
      };
      if (study.confidence) {
        slider(el, "surely<br>(a) (0)", "surely<br>(b) (100)", (value, rt) => finish({ slider: value }, rt));
      } else {
        for (const choice of ["a", "b"]) {
          el.querySelector("#mf-" + choice).addEventListener("click", () =>
            finish({ choice: choice }, Math.round(performance.now() - askedAt)),
          );
        }
      }
    }
  }
  BeliefPlugin.info = {
    name: "marple-belief-question",
    version: "1.0.0",
    parameters: { trial: { type: ParameterType.OBJECT, default: undefined } },
    data: { question_id: { type: ParameterType.STRING }, trial_index: { type: ParameterType.INT } },
  };

  // ---- an expectation trial: the familiarisation and one test, animated, then the surprise slider --------------
  class SurprisePlugin {
    constructor(jsPsych) {
      this.jsPsych = jsPsych;
    }

    trial(el, params) {
      const trial = params.trial;
      const hold = Math.max(1, Math.round(study.fps * study.pause)); // the pause at the end of each episode
      const frames = [];
      trial.episodes.forEach((episode, j) => {
        for (let t = 0; t < episode.steps + hold; t++) {
          frames.push({ j: j, src: episode.frames + pad(Math.min(t, episode.steps - 1), 3) + ".png" });
        }
      });
      // Load every frame now, so the animation runs smoothly and a server outage cannot blank it.
      this.preloaded = frames.map((f) => Object.assign(new Image(), { src: f.src }));
      el.innerHTML = `<div class="mf-trial mf-expectations">
        <div class="mw-head"><span>${counter(trial)}</span><h2 class="mw-question" id="mf-title"></h2>
          <span id="mf-episode"></span></div>
        <div class="mf-movie"><img id="mf-movie" alt="the agent"></div>
        <div class="mf-controls">
          <p class="mw-hint" id="mf-watching">Watch the animations to the end.</p>
          <div id="mf-ask" hidden><p class="mw-ask-title">How surprising was what the agent did in the test?</p>
            <div id="mf-slider-box"></div>
            <p><button class="jspsych-btn" id="mf-replay">Watch again</button></p></div>
        </div>
        <div class="mw-status" id="mw-status"></div></div>`;
      const $ = (id) => el.querySelector("#" + id);
      let timer = null;
      let asked = false;
      const play = () => {
        clearInterval(timer);
        let k = 0;
        const tick = () => {
          if (k >= frames.length) {
            clearInterval(timer);
            timer = null;
            if (!asked) {
              asked = true;
              $("mf-watching").hidden = true;
              $("mf-ask").hidden = false;
              slider(el, "not surprising<br>at all (0)", "very<br>surprising (100)", (value, rt) => {
                clearInterval(timer);
                addEntry({
                  type: "rating",
                  participant: participant,
                  trial_id: trial.item,
                  trial_index: trial.index,
                  slider: value,
                  time: nowIso(),
                  rt_ms: rt,
                });
                this.jsPsych.finishTrial({ trial_id: trial.item, trial_index: trial.index });
              });
            }
            return;
          }
          const frame = frames[k++];
          const episode = trial.episodes[frame.j];
          $("mf-movie").src = frame.src;
          $("mf-title").textContent = episode.title;
          $("mf-episode").textContent = "Animation " + (frame.j + 1) + " of " + trial.episodes.length;
        };
        tick();
        timer = setInterval(tick, 1000 / study.fps);
      };
      $("mf-replay").addEventListener("click", play);
      play();
    }
  }
  SurprisePlugin.info = {
    name: "marple-surprise-rating",
    version: "1.0.0",
    parameters: { trial: { type: ParameterType.OBJECT, default: undefined } },
    data: { trial_id: { type: ParameterType.STRING }, trial_index: { type: ParameterType.INT } },
  };

  return family === "beliefs" ? BeliefPlugin : SurprisePlugin;
};
