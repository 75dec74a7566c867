// The analysis board's page.  It keeps the line being looked at (the deal and the
// cards played so far) and asks the server about every position it shows: the
// legal cards, their values, the layout.  It knows no rule of any game.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var $ = function (id) { return document.getElementById(id); };
  var state = {
    base: null,        // the position document without its history
    line: [],          // every card of the line, played and ahead
    cursor: 0,         // how many of them are played
    view: null,        // the server's view of the position at the cursor
    result: null,      // its solve (every legal card's value)
    search: null,      // the id of the search running, if any
    generation: 0,     // answers for an older position are dropped
    loading: false,    // a position asked for has not come yet
    searchFailed: false, // the error shown is a search's (a search again clears it)
    shown: null        // the line and cursor of the position shown ({ line, cursor })
  };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function signed(v) {
    if (v === null || v === undefined) return "?";
    return v > 0 ? "+" + v : (v === 0 ? "0" : "\u2212" + (-v));
  }

  // Prší's values are within a horizon, and of two actions of one value the one that forces the end
  // sooner is the best: how soon, as `ddcards solve` says it ("+1 in 9"); null in the other games.
  function inPlies(distance) {
    return distance === null || distance === undefined ? "" : " in " + distance;
  }

  function seatName(seat) {
    var role = state.view && state.view.roles[seat];
    return "seat " + seat + (role ? " (" + role + ")" : "");
  }

  // Every answer as { ok, status, body }, never a rejected promise: the board's own errors are JSON
  // with an "error"; anything else (a plain-text 405/413/500, a proxy's page, the server gone) becomes
  // one, so the callers show it, stop the counter and reset the buttons as for any error.  status is
  // the HTTP status, 0 when no answer came (the server gone, the network).
  function answer(r) {
    return r.text().then(function (text) {
      var body = null;
      try { body = JSON.parse(text); } catch (e) { body = null; }
      if (body !== null && typeof body === "object" && (r.ok || typeof body.error === "string")) {
        return { ok: r.ok, status: r.status, body: body };
      }
      text = text.trim();
      var status = "HTTP " + r.status + (r.statusText ? " " + r.statusText : "");
      return { ok: false, status: r.status, body: { error: "The board server answered " + status +
        (text && text !== r.statusText ? ": " + text.slice(0, 300) : "") + "." } };
    });
  }

  function unreachable() {
    return { ok: false, status: 0,
             body: { error: "The board server cannot be reached: is `ddcards board` still running?" } };
  }

  // A failed request that the same request may mend later: no answer (the board stopped or
  // restarted, the network), a server's error (5xx: a table it could not allocate then), a proxy's
  // timeout or rate limit (408, 429).  Any other 4xx is the board saying what is wrong with the
  // request (Prší's value unproven without a horizon): the same request gets the same answer.
  function worthRetrying(status) {
    return status === 0 || status >= 500 || status === 408 || status === 429;
  }

  function post(url, body) {
    return fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
                        body: JSON.stringify(body) })
      .then(answer).catch(unreachable);
  }

  // Bidi controls (U+202E, ...) in a token would reorder the rest of its line: shown as \u202e,
  // as the messages write them, and the token isolated in a <bdi> besides.
  function visible(text) {
    return String(text).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
    });
  }

  // ofSearch: the error is a search's (cleared by a search again; a load's stays until the next load).
  function showError(err, ofSearch) {
    var box = $("error");
    state.searchFailed = !!(err && ofSearch);
    box.textContent = "";
    if (!err) { box.hidden = true; return; }
    box.appendChild(el("p", { text: visible(err.error) }));
    if (err.token || err.rule) {
      var detail = el("p", { "class": "detail" });
      if (err.token) {
        detail.appendChild(document.createTextNode("token: "));
        detail.appendChild(el("bdi", { "class": "token", text: visible(err.token) }));
      }
      if (err.token && err.rule) detail.appendChild(document.createTextNode(" · "));
      if (err.rule) detail.appendChild(document.createTextNode("rule: " + visible(err.rule)));
      box.appendChild(detail);
    }
    box.hidden = false;
  }

  function setStatus(text) { $("status").textContent = text; }

  // ------------------------------------------------------------ loading
  function loadDocument(request) {
    var interrupted = stopSearch();
    var generation = ++state.generation;
    state.loading = true;        // (a card clicked meanwhile would take the load's place)
    return post("/api/position", request).then(function (r) {
      if (generation !== state.generation) return;
      state.loading = false;
      if (!r.ok) { keepShown(r.body, interrupted); return; }
      showError(null);
      var doc = r.body.position;
      state.line = (doc.played || []).slice();
      state.cursor = state.line.length;
      state.base = Object.assign({}, doc);
      delete state.base.played;
      $("doc").value = JSON.stringify(doc);
      show(r.body);
    });
  }

  function currentDocument() {
    var doc = Object.assign({}, state.base);
    doc.played = state.line.slice(0, state.cursor);
    return doc;
  }

  function refresh() {
    var interrupted = stopSearch();
    var doc = currentDocument();
    var generation = ++state.generation;
    state.loading = true;        // the cards shown are the last position's until the answer comes
    return post("/api/position", { position: doc }).then(function (r) {
      if (generation !== state.generation) return;
      state.loading = false;
      if (!r.ok) { keepShown(r.body, interrupted); return; }
      showError(null);
      show(r.body);
    });
  }

  // A load or a step that failed: the error is said and the position shown stays, with its line
  // (the step is undone) and its values (its search, stopped for the new position, runs again).
  function keepShown(err, interrupted) {
    showError(err);
    if (!state.view) return;
    state.line = state.shown.line.slice();
    state.cursor = state.shown.cursor;
    keepFocus(drawLine);
    if (interrupted) solve(state.generation);
  }

  // ------------------------------------------------------------ solving
  function newSearchId() {
    return "s" + Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  }

  function solve(generation) {
    var id = newSearchId();
    state.search = id;
    $("stop").disabled = false;
    $("again").hidden = true;
    var started = performance.now();
    setStatus("Searching…");
    var timer = setInterval(function () {
      if (state.search === id) setStatus("Searching… " + ((performance.now() - started) / 1000).toFixed(1) + " s");
    }, 250);
    post("/api/solve", { position: currentDocument(), search: id }).then(function (r) {
      clearInterval(timer);
      var current = state.search === id;      // not stopped by the page meanwhile (Stop, Esc, a search again)
      var fromStop = document.activeElement === $("stop");
      var fromAgain = document.activeElement === $("again");
      if (current) { state.search = null; $("stop").disabled = true; }
      if (generation !== state.generation) return;
      if (!r.ok) {
        // A search the page stopped has said so, and offered it again or runs it again: its
        // failure is no news (a search again says its own).
        if (!current) return;
        // The message stays said; a failure that asking again may mend is offered again.
        showError(r.body, true);
        setStatus("The search failed.");
        if (worthRetrying(r.status)) offerAgain(fromStop);
        else if (fromStop) focusValues();       // (nothing offered: the focus goes to the cards)
        return;
      }
      if (r.body.stopped) {
        // Stopped by the server (its time limit): said, and offered again as a stop of the page's is.
        // A stop of the page's has said so and offered it itself (a search again may be running now).
        if (!current) return;
        setStatus(r.body.stopped === "timeout" ? "The search ran out of time (" + r.body.timeout + " s)."
                                               : "Search stopped.");
        offerAgain(fromStop);
        return;
      }
      // The values, of this position: shown even when the page stopped the search meanwhile (it
      // ended before the stop reached the server, which then answers them), with no Search again
      // beside them; a search again running for them now is stopped (they are here).
      if (!current) stopSearch();
      $("again").hidden = true;
      state.result = r.body;
      showValues();
      if (fromStop || fromAgain) focusValues();
    });
  }

  // The focus on Stop or Search again, which a search ended (or failed for good) has disabled or
  // hidden (it would fall to the page's body), goes to the values: the first legal card (or,
  // none, the line's step).
  function focusValues() {
    var next = document.querySelector("#table button.card") || $("line").querySelector("button.current");
    if (next) next.focus();
  }

  // Stops the search running, if any; says whether one was.
  function stopSearch() {
    if (!state.search) return false;
    post("/api/stop", { search: state.search });
    state.search = null;
    $("stop").disabled = true;
    return true;
  }

  // Stop (the button, Esc): says so only of a search that was running, and offers it again
  // (stopped by mistake, it would take stepping away and back).
  function stopPressed() {
    var fromStop = document.activeElement === $("stop");       // (disabled now: the focus would fall)
    if (!stopSearch()) return;
    setStatus("Search stopped.");
    offerAgain(fromStop);
  }

  // A stopped search (Stop, Esc, the server's time limit) or a failed one offered again; the focus, if it was on
  // Stop (disabled now: it would fall to the page's body), goes to the offer.
  function offerAgain(fromStop) {
    $("again").hidden = false;
    if (fromStop) $("again").focus();
  }

  function searchAgain() {
    $("again").hidden = true;
    if (state.searchFailed) showError(null);          // (said again if it fails again)
    solve(state.generation);
    $("stop").focus();
  }

  // ------------------------------------------------------------ drawing
  // Redraws the table or the line by `draw`; the focus, if it was in one of them, goes to the
  // first legal card (a card just played from the keyboard) or the line's current step, not to
  // the page's body with the button it was on.
  function keepFocus(draw) {
    var focused = document.activeElement;
    var inTable = focused && $("table").contains(focused), inLine = focused && $("line").contains(focused);
    draw();
    if ((!inTable && !inLine) || document.contains(focused)) return;
    var next = (inTable && document.querySelector("#table button.card")) || $("line").querySelector("button.current");
    if (next) next.focus();
  }

  function show(view) {
    state.view = view;
    state.result = null;
    state.shown = { line: state.line.slice(), cursor: state.cursor };      // the line of what is shown
    $("position").hidden = false;
    $("title").textContent = view.title;
    // the controls say what one step of the line is (Prší: an action, a draw or a pass as much as a card)
    $("back").setAttribute("aria-label", "One " + view.unit + " back");
    $("forward").setAttribute("aria-label", "One " + view.unit + " forward");
    $("best").textContent = "Play a best " + view.unit;
    // what this deal's values mean (whose view, and a margin's measure or an outcome's legend)
    $("meaning").textContent = view.value_meaning ?
      // "the declarer's", "the playing team's"; a numbered owner takes no article ("seat 1's")
      "Values are " + (/^(seat|team) \d/.test(view.value_owner) ? "" : "the ") + view.value_owner + "'s: " +
      view.value_meaning + "." : "";
    keepFocus(function () { drawTable(); drawLine(); });
    $("pv").textContent = "";
    $("best").disabled = true;
    if (view.over) {             // every card played, a race claimed, a Prší game won
      setStatus("The deal is over" + (view.score ? ": " + view.score_label + " " + view.score : "") + ".");
    }
    solve(state.generation);
  }

  function cardFace(piece) {
    return [document.createTextNode(piece.rank),
            el("span", { "class": "sym", "aria-hidden": "true", text: piece.symbol })];
  }

  function drawTable() {
    var view = state.view;
    var table = $("table");
    table.textContent = "";
    var areas = { 2: ["s", "n"], 3: ["s", "w", "e"], 4: ["s", "w", "n", "e"] }[view.hands.length];
    table.className = "table " + (areas ? "around" : "list") + (view.suit_names.length ? " deck-german" : "");
    var legal = {};
    view.legal.forEach(function (m) { legal[m] = true; });
    view.hands.forEach(function (rows, seat) {
      var moving = seat === view.to_move;
      var hand = el("section", { "class": "hand" + (moving ? " to-move" : ""), "data-seat": seat,
                                 "aria-label": seatName(seat) + (moving ? ", to move" : "") });
      hand.appendChild(el("h3", { text: seatName(seat) + (moving ? " — to move" : "") }));
      var list = el("ul");
      rows.forEach(function (row) {
        var cards = el("span", { "class": "cards" });
        row.cards.forEach(function (piece) {
          if (moving && legal[piece.card]) {
            var b = el("button", { type: "button", "class": "card suit-" + piece.suit, "data-card": piece.card,
                                   "aria-label": piece.name }, cardFace(piece));
            b.appendChild(el("span", { "class": "val", text: "…" }));
            b.addEventListener("click", function () { play(piece.card); });
            cards.appendChild(b);
          } else {
            cards.appendChild(el("span", { "class": "card plain suit-" + piece.suit, "data-card": piece.card,
                                           title: piece.name }, cardFace(piece)));
          }
        });
        if (!row.cards.length) cards.appendChild(el("span", { "class": "plain", text: "\u2014" }));
        list.appendChild(el("li", {}, [
          el("span", { "class": "suit suit-" + row.suit }, [
            el("span", { "aria-hidden": "true", text: row.symbol }), document.createTextNode(" " + row.name + " ")]),
          cards]));
      });
      hand.appendChild(list);
      table.appendChild(el("div", { "class": "seat-cell", style: areas ? "grid-area:" + areas[seat] : "" }, [hand]));
    });
    var centre = el("div", { "class": "centre", style: "grid-area:c", id: "centre" });
    // Legal actions that are no card in the mover's hand (Prší's "draw", say) get buttons here.
    var shown = {};
    Array.prototype.forEach.call(table.querySelectorAll("button.card"), function (b) { shown[b.dataset.card] = true; });
    var actions = view.legal.filter(function (m) { return !shown[m]; });
    if (actions.length) {
      var group = el("p", { "class": "actions" }, [el("span", { "class": "label", text: "actions" })]);
      actions.forEach(function (m) {
        var ober = view.obers && view.obers[m];
        // Prší's Ober naming a suit: the card, then the suit it names (as the report shows it)
        var face = ober ? cardFace(ober.card).concat([el("span", { "class": "named" }, [
          document.createTextNode(" names "),
          el("span", { "class": "suit suit-" + ober.named.suit }, [
            el("span", { "aria-hidden": "true", text: ober.named.symbol }),
            document.createTextNode(" " + ober.named.name)])])]) : [document.createTextNode(m)];
        var label = ober ? ober.card.name + " naming " + ober.named.name : m;
        var b = el("button", { type: "button", "class": "card action" + (ober ? " ober suit-" + ober.card.suit : ""),
                               "data-card": m, "aria-label": label },
                   face.concat([el("span", { "class": "val", text: "…" })]));
        b.addEventListener("click", function () { play(m); });
        group.appendChild(b);
      });
      centre.appendChild(group);
    }
    if (view.trick.length) {
      var trick = el("p", { "aria-label": "on the table" }, [el("span", { "class": "label", text: "on the table" })]);
      view.trick.forEach(function (piece) {
        // (named as an image: its suit is a symbol a screen reader does not read)
        trick.appendChild(el("span", { "class": "played-card card suit-" + piece.suit, "data-card": piece.card,
                                        title: piece.name, role: "img",
                                        "aria-label": piece.name + ", seat " + piece.seat },
                             cardFace(piece).concat([el("span", { "class": "who", text: "seat " + piece.seat })])));
      });
      centre.appendChild(trick);
    }
    view.extras.forEach(function (x) {
      var p = el("p", {}, [el("span", { "class": "label", text: x.label })]);
      if (x.cards) {
        x.cards.forEach(function (piece) {
          p.appendChild(el("span", { "class": "card suit-" + piece.suit, title: piece.name, role: "img",
                                     "aria-label": piece.name }, cardFace(piece)));
          p.appendChild(document.createTextNode(" "));
        });
      } else p.appendChild(document.createTextNode(x.text));
      centre.appendChild(p);
    });
    if (view.score) centre.appendChild(el("p", {}, [el("span", { "class": "label", text: view.score_label + " so far" }),
                                                     document.createTextNode(view.score)]));
    if (view.trump) centre.appendChild(el("p", {}, [el("span", { "class": "label", text: "trumps" }),
      el("span", { "class": "suit suit-" + view.trump.suit }, [
        el("span", { "aria-hidden": "true", text: view.trump.symbol }), document.createTextNode(" " + view.trump.name)])]));
    table.appendChild(centre);
  }

  function drawLine() {
    var list = $("line");
    list.textContent = "";
    var start = el("button", { type: "button", "class": "start" + (state.cursor === 0 ? " current" : ""),
                               text: "start" });
    start.addEventListener("click", function () { goTo(0); });
    list.appendChild(el("li", {}, [start]));
    var history = state.view.history;     // the played part, with seats and trick ends
    state.line.forEach(function (move, i) {
      var h = history[i];
      var label = move + (h ? " (seat " + h.seat + ")" : " (ahead)");
      var b = el("button", { type: "button", text: move, "data-ply": i, "aria-label": state.view.unit + " " + (i + 1) + ": " + label,
                             "class": (i + 1 === state.cursor ? "current" : "") + (i >= state.cursor ? " ahead" : "") });
      b.addEventListener("click", function () { goTo(i + 1); });
      list.appendChild(el("li", { "class": h && h.trick_end ? "trick-end" : "" }, [b]));
    });
    $("first").disabled = $("back").disabled = state.cursor === 0;
    $("forward").disabled = $("last").disabled = state.cursor >= state.line.length;
  }

  function showValues() {
    var res = state.result;
    var values = {};
    res.moves.forEach(function (m) { values[m.move] = m; });
    Array.prototype.forEach.call(document.querySelectorAll("#table button.card"), function (b) {
      var m = values[b.getAttribute("data-card")];
      if (!m) return;
      b.classList.add(m.optimal ? "best" : "worse");
      b.querySelector(".val").textContent = signed(m.value) + inPlies(m.distance);
      b.setAttribute("data-value", m.value);
      b.setAttribute("aria-label", b.getAttribute("aria-label").split(",")[0] + ", value " + signed(m.value) +
                     (inPlies(m.distance) ? ", the end" + inPlies(m.distance) + " plies" : "") +
                     (m.optimal ? ", best" : ""));
    });
    // score keys as words ("seat0_marriages" reads "seat 0 marriages", as the report writes a seat),
    // said what they count (Prší's are the cards each seat holds) and when (the end of the best
    // line, or of the deal)
    var scores = Object.keys(res.scores).map(function (k) {
      return k.replace(/_/g, " ").replace(/^(seat|team)(\d)/, "$1 $2") + " " + res.scores[k];
    }).join(", ");
    if (scores) scores = state.view.score_label + (res.pv.length ? " at the end of the best line: " : ": ") + scores;
    // (the status of a finished deal says so first: the solve's line replaces the one show() set)
    setStatus((state.view && state.view.over ? "The deal is over. " : "") +
              "Value " + signed(res.value) + (res.value_owner ? " (" + res.value_owner + "'s view)" : "") +
              ": " + res.verdict + (res.distance ? ", the end in " + res.distance + (res.distance === 1 ? " ply" : " plies") : "") +
              (scores ? " (" + scores + ")" : "") +
              " · " + res.nodes.toLocaleString("en") + " nodes in " + res.elapsed_ms.toFixed(1) + " ms");
    $("status").setAttribute("data-value", res.value);
    // trick by trick, as `ddcards solve` prints a line
    $("pv").textContent = res.pv.length ? "Best line from here: " + res.pv.map(function (move, i) {
      return move + (res.pv_trick_ends[i] && i < res.pv.length - 1 ? " |" : "");
    }).join(" ") : "";
    $("best").disabled = !res.optimal_moves.length;
  }

  // ------------------------------------------------------------ moving
  function play(card) {
    // A click on the last position's cards while the next one loads (a double click, a slow
    // network) would play them in the new position, where they are no longer legal.
    if (state.loading) return;
    if (state.line[state.cursor] !== card) state.line = state.line.slice(0, state.cursor).concat([card]);
    state.cursor += 1;
    refresh();
  }

  function goTo(cursor) {
    cursor = Math.max(0, Math.min(state.line.length, cursor));
    if (cursor === state.cursor) return;
    state.cursor = cursor;
    refresh();
  }

  $("first").addEventListener("click", function () { goTo(0); });
  $("back").addEventListener("click", function () { goTo(state.cursor - 1); });
  $("forward").addEventListener("click", function () { goTo(state.cursor + 1); });
  $("last").addEventListener("click", function () { goTo(state.line.length); });
  $("best").addEventListener("click", function () {
    if (state.result && state.result.optimal_moves.length) play(state.result.optimal_moves[0]);
  });
  $("stop").addEventListener("click", stopPressed);
  $("again").addEventListener("click", searchAgain);
  $("load-btn").addEventListener("click", function () { loadDocument({ text: $("doc").value }); });
  $("file").addEventListener("change", function (ev) {
    var file = ev.target.files[0];
    if (!file) return;
    file.text().then(function (text) { $("doc").value = text; loadDocument({ text: text }); });
  });
  var select = $("example");
  data.examples.forEach(function (name) { select.appendChild(el("option", { value: name, text: name })); });
  select.addEventListener("change", function () {
    if (!select.value) return;
    fetch("/api/examples").then(answer).catch(unreachable).then(function (r) {
      if (!r.ok) { showError(r.body); return; }
      loadDocument({ position: r.body[select.value] });
    });
  });
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "textarea" || tag === "input" || tag === "select" || !state.view) return;
    // the browser's own keys (Alt+← goes back a page, Ctrl+End) are left to it
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var keys = { ArrowLeft: state.cursor - 1, ArrowRight: state.cursor + 1, Home: 0, End: state.line.length };
    if (ev.key === "Escape") { stopPressed(); return; }
    if (!(ev.key in keys)) return;
    ev.preventDefault();
    goTo(keys[ev.key]);
  });
  if (data.position) loadDocument({ position: data.position });
})();
