// The simulator page: draws the physical board (checkers, LEDs, LED dice, cube column) and
// lets a hand move checkers and press buttons. It keeps ONLY physical state -- which checkers
// lie where -- and knows no rules: every game decision is the firmware's, and all the page
// learns back is the LED frame.
//
// Locations (as tools/sim/physical.py): 0..23 board points 1..24, 24/25 bar of side 0/1,
// 26/27 bear-off trays of side 0/1.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const X0 = 30, PW = 56, BAR_X = 366, BAR_W = 80, RIGHT_X = 446, TRAY_X = 800, TRAY_W = 60;
const TOP = 64, BOTTOM = 664, R = 24, PITCH = 48, BAR_PITCH = 40, TRAY_PITCH = 16;
const CUBE_X = 900, MID = (TOP + BOTTOM) / 2;

const sim = {
  board: null,       // hardware/board.json
  locs: [],          // 28 stacks of colours (bottom first)
  hand: [],          // colours in the hand
  leds: null,        // Uint8Array GRB
  frames: 0,
  ledEls: [],        // SVG element per LED index
  drag: null,        // {colour, from, el}
  cap: 48,
};
window.sim = sim;   // tests read sim.locs / sim.leds

// Client (page) coordinates where a checker put down on ``loc`` lands (tests, automation).
sim.dropPoint = function (loc) {
  const c = slotCentre(loc, Math.min(sim.locs[loc].length, loc < 24 ? 5 : loc < 26 ? 5 : 14));
  const pt = svg.createSVGPoint();
  pt.x = c.x; pt.y = c.y;
  const q = pt.matrixTransform(svg.getScreenCTM());
  return [q.x, q.y];
};

function el(name, attrs, parent) {
  const e = document.createElementNS(SVGNS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// --- geometry ------------------------------------------------------------------------------
// Board point p (1..24): column x centre and whether it is in the top row.
function pointGeom(p) {
  let top, col;
  if (p >= 13) { top = true; col = p - 13; }       // 13..24 left to right along the top
  else { top = false; col = 12 - p; }               // 12..1 left to right along the bottom
  const x = col < 6 ? X0 + col * PW + PW / 2 : RIGHT_X + (col - 6) * PW + PW / 2;
  return { x, top };
}

function slotCentre(loc, k) {
  if (loc < 24) {
    const g = pointGeom(loc + 1);
    const layer = Math.floor(k / 6), s = k % 6;
    const dx = layer * 7, dy = layer * 7;
    return g.top ? { x: g.x + dx, y: TOP + R + s * PITCH + dy } : { x: g.x + dx, y: BOTTOM - R - s * PITCH - dy };
  }
  if (loc < 26) {   // bar 0 in the top half (slot 0 at the rim), bar 1 in the bottom half
    const s = Math.min(k, 5), layer = Math.floor(k / 6);
    const x = BAR_X + BAR_W / 2 + layer * 6;
    return loc === 24 ? { x, y: TOP + 20 + s * BAR_PITCH } : { x, y: BOTTOM - 20 - s * BAR_PITCH };
  }
  const x = TRAY_X + TRAY_W / 2;   // tray 1 top right, tray 0 bottom right; slot 0 at the rim
  return loc === 27 ? { x, y: TOP + 8 + k * TRAY_PITCH } : { x, y: BOTTOM - 8 - k * TRAY_PITCH };
}

// The location under a board coordinate (where a dropped checker lands), or -1.
function locAt(x, y) {
  if (y < TOP - 20 || y > BOTTOM + 20) return -1;
  const top = y < (TOP + BOTTOM) / 2;
  if (x >= BAR_X && x < BAR_X + BAR_W) return top ? 24 : 25;
  if (x >= TRAY_X && x < TRAY_X + TRAY_W) return top ? 27 : 26;
  let col;
  if (x >= X0 && x < X0 + 6 * PW) col = Math.floor((x - X0) / PW);
  else if (x >= RIGHT_X && x < RIGHT_X + 6 * PW) col = 6 + Math.floor((x - RIGHT_X) / PW);
  else return -1;
  const p = top ? 13 + col : 12 - col;
  return p - 1;
}

// --- drawing ---------------------------------------------------------------------------------
let gCheckers, gFloat, svg;

function drawStatic() {
  svg = document.getElementById("board");
  el("rect", { x: 10, y: 10, width: 920, height: 710, rx: 14, fill: "#6b4a2b" }, svg);
  el("rect", { x: X0, y: TOP, width: 6 * PW, height: BOTTOM - TOP, fill: "#1f5b3a" }, svg);
  el("rect", { x: RIGHT_X, y: TOP, width: 6 * PW, height: BOTTOM - TOP, fill: "#1f5b3a" }, svg);
  el("rect", { x: BAR_X, y: TOP, width: BAR_W, height: BOTTOM - TOP, fill: "#5a3d22" }, svg);
  el("rect", { x: TRAY_X, y: TOP, width: TRAY_W, height: 280, fill: "#3e2a17", rx: 6 }, svg);
  el("rect", { x: TRAY_X, y: BOTTOM - 280, width: TRAY_W, height: 280, fill: "#3e2a17", rx: 6 }, svg);
  for (let p = 1; p <= 24; p++) {
    const g = pointGeom(p);
    const fill = p % 2 ? "#c9b18a" : "#8c2f2f";
    const tipY = g.top ? TOP + 6 * PITCH : BOTTOM - 6 * PITCH;
    const baseY = g.top ? TOP : BOTTOM;
    el("polygon", { points: `${g.x - PW / 2 + 2},${baseY} ${g.x + PW / 2 - 2},${baseY} ${g.x},${tipY}`, fill }, svg);
    const t = el("text", { x: g.x, y: g.top ? TOP - 34 : BOTTOM + 44, class: "pointlabel", "data-p": p }, svg);
    t.textContent = p;
  }
  // the bar's halves: a hit checker goes to its own side's half (loc 24: white's, top)
  for (const [side, y] of [[0, MID - 24], [1, MID + 33]]) {  // between the turn LEDs and the dice
    const t = el("text", { x: BAR_X + BAR_W / 2, y, class: "barlabel", id: "barlabel" + side }, svg);
    t.textContent = (side ? "black's bar \u2193" : "white's bar \u2191");
  }
  // whose numbering the point labels show (the mover's, as GNU Backgammon numbers them)
  const n = el("text", { x: TRAY_X + TRAY_W / 2, y: MID + 4, class: "barlabel", id: "numbering" }, svg);
  n.textContent = "white's numbers";
  gCheckers = el("g", { id: "checkers" }, svg);
  gFloat = el("g", { id: "float" }, svg);
}

function ledPos(e) {
  const k = e.kind, i = e.index;
  if (k === "point") { const g = pointGeom(i); return { x: g.x, y: g.top ? TOP - 16 : BOTTOM + 16, r: 10 }; }
  if (k === "bar") return { x: BAR_X + BAR_W / 2, y: i === 0 ? TOP - 16 : BOTTOM + 16, r: 7 };
  if (k === "tray") return { x: TRAY_X + TRAY_W / 2, y: i === 1 ? TOP - 16 : BOTTOM + 16, r: 7 };
  if (k === "turn") return { x: BAR_X + BAR_W / 2, y: i === 1 ? MID - 54 : MID + 54, r: 8 };
  if (k === "cube_owner") return { x: CUBE_X, y: i === 1 ? MID - 150 : MID + 150, r: 8 };
  if (k === "cube_value") {
    const n = [2, 4, 8, 16, 32, 64].indexOf(i);
    return { x: CUBE_X, y: MID + 105 - n * 42, r: 9, label: String(i) };
  }
  if (k === "die") {
    // pips in board.json order: TL, ML, BL, C, TR, MR, BR
    const off = [[-1, -1], [-1, 0], [-1, 1], [0, 0], [1, -1], [1, 0], [1, 1]][e.pip];
    const cx = BAR_X + BAR_W / 2 + (i === 0 ? -19 : 19), cy = MID;
    return { x: cx + off[0] * 10, y: cy + off[1] * 10, r: 4, die: i };
  }
  return { x: 0, y: 0, r: 0 };
}

function drawLeds() {
  const chain = sim.board.leds.chain;
  const gd = el("g", { id: "leds" }, svg);
  for (const d of [0, 1]) {
    el("rect", { x: BAR_X + BAR_W / 2 + (d === 0 ? -36 : 2), y: MID - 17, width: 34, height: 34, rx: 5,
                 fill: "#111", stroke: "#777", id: "die" + d }, gd);
  }
  chain.forEach((e, i) => {
    const p = ledPos(e);
    const c = el("circle", { cx: p.x, cy: p.y, r: p.r, class: "led", fill: "#222", id: "led-" + i,
                             "data-kind": e.kind, "data-index": e.index }, gd);
    if (e.kind === "die") c.setAttribute("data-pip", e.pip);
    sim.ledEls.push(c);
    if (p.label) {
      const t = el("text", { x: p.x + 16, y: p.y + 4, fill: "#bbb", "font-size": 11 }, gd);
      t.textContent = p.label;
    }
  });
}

function drawCheckers() {
  gCheckers.textContent = "";
  for (let loc = 0; loc < 28; loc++) {
    const stack = sim.locs[loc];
    stack.forEach((colour, k) => {
      const c = slotCentre(loc, k);
      let node;
      if (loc >= 26) {
        node = el("rect", { x: c.x - 24, y: c.y - 6, width: 48, height: 12, rx: 3, class: "traychk c" + colour }, gCheckers);
      } else {
        node = el("circle", { cx: c.x, cy: c.y, r: loc < 24 ? R - 1 : 18, class: "checker c" + colour }, gCheckers);
      }
      node.setAttribute("data-loc", loc);
      node.setAttribute("data-k", k);
      if (k === stack.length - 1) {
        node.classList.add("top");
        node.addEventListener("pointerdown", startDrag);
      }
    });
    if (loc < 24 && stack.length > 6) {
      const c = slotCentre(loc, 0);
      const t = el("text", { x: c.x, y: c.y + 5, class: "stacklabel" }, gCheckers);
      t.textContent = stack.length;
    }
  }
}

// An LED's drive values (0..cap) as the eye sees them on the board: brightness follows the
// eye's response (about a 1/2.2 power of the drive), the hue stays the LED's (the channels
// keep their ratios), so a dimmed or pulsing yellow still reads yellow, not dark olive.
sim.ledColour = function (r, g, b) {
  const k = Math.min(1, Math.max(r, g, b) / sim.cap);
  const gain = k > 0 ? Math.pow(k, 1 / 2.2) / k : 0;
  const f = (v) => Math.min(255, Math.round((255 * v * gain) / sim.cap));
  return [f(r), f(g), f(b)];
};

function paintLeds() {
  if (!sim.leds) return;
  sim.ledEls.forEach((c, i) => {
    const g = sim.leds[3 * i], r = sim.leds[3 * i + 1], b = sim.leds[3 * i + 2];
    if (!(r || g || b)) { c.setAttribute("fill", "#222"); c.removeAttribute("data-lit"); return; }
    c.setAttribute("fill", `rgb(${sim.ledColour(r, g, b).join(",")})`);
    c.setAttribute("data-lit", "1");
  });
}

// --- the hand ----------------------------------------------------------------------------------
function svgPoint(ev) {
  const pt = svg.createSVGPoint();
  pt.x = ev.clientX; pt.y = ev.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function startDrag(ev) {
  ev.preventDefault();
  const loc = Number(ev.target.getAttribute("data-loc"));
  if (!sim.locs[loc].length || sim.drag) return;
  const colour = sim.locs[loc].pop();     // lifting: this checker's slot opens now
  sim.hand.push(colour);
  const p = svgPoint(ev);
  const node = el("circle", { cx: p.x, cy: p.y, r: R - 1, class: "checker inhand c" + colour }, gFloat);
  sim.drag = { colour, from: loc, el: node };
  drawCheckers();
  sendPhysical();
}

function moveDrag(ev) {
  if (!sim.drag) return;
  const p = svgPoint(ev);         // sliding over points closes nothing: no message
  sim.drag.el.setAttribute("cx", p.x);
  sim.drag.el.setAttribute("cy", p.y);
}

function endDrag(ev) {
  if (!sim.drag) return;
  const p = svgPoint(ev);
  let loc = locAt(p.x, p.y);
  if (loc < 0) loc = sim.drag.from;   // dropped off the board: it goes back where it was
  const i = sim.hand.indexOf(sim.drag.colour);
  sim.hand.splice(i, 1);
  sim.locs[loc].push(sim.drag.colour);   // dropping closes the slot it lands in
  sim.drag.el.remove();
  sim.drag = null;
  drawCheckers();
  sendPhysical();
}

// Every change goes out in order, one request after the other: a button's "up" must never
// overtake its "down", nor a press the checker move made just before it.
let outbox = Promise.resolve();
function post(path, obj) {
  const body = JSON.stringify(obj);
  outbox = outbox.then(() => fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body }))
    .catch(() => null);
  return outbox;
}

function sendPhysical() {
  return post("/api/physical", { locs: sim.locs, hand: sim.hand });
}

function pressed(i, on) {
  for (const b of document.querySelectorAll("button.hw")) {
    if (Number(b.dataset.button) === i) b.classList.toggle("pressed", on);
  }
}

function wireButtons() {
  const names = sim.board.buttons.map((b) => b.name);
  for (const b of document.querySelectorAll("button.hw")) {
    const idx = names.indexOf(b.id.replace("btn-", ""));
    b.dataset.button = idx;
    const down = (ev) => { ev.preventDefault(); b.classList.add("pressed"); post("/api/button", { i: idx, down: 1 }); };
    const up = (ev) => {
      ev.preventDefault();
      if (!b.classList.contains("pressed")) return;
      b.classList.remove("pressed");
      post("/api/button", { i: idx, down: 0 });
    };
    b.addEventListener("pointerdown", down);
    b.addEventListener("pointerup", up);
    b.addEventListener("pointerleave", up);
  }
  // The board's gestures: the page holds the same simulated buttons down for the gesture's
  // time, through the same button API as the buttons above (nothing reaches the firmware
  // any other way).
  for (const g of document.querySelectorAll("button.gesture")) {
    g.addEventListener("click", (ev) => {
      ev.preventDefault();
      if (g.disabled) return;
      const idx = g.dataset.hold.split(",").map((n) => names.indexOf(n));
      g.disabled = true;
      for (const i of idx) { post("/api/button", { i, down: 1 }); pressed(i, true); }
      setTimeout(() => {
        for (const i of idx) { post("/api/button", { i, down: 0 }); pressed(i, false); }
        g.disabled = false;
      }, Number(g.dataset.ms));
    });
  }
  document.getElementById("setup-start").onclick = () => post("/api/reset", { setup: "start" });
  document.getElementById("setup-clear").onclick = () => post("/api/reset", { setup: "clear" });
  // the computer opponent: the board restarts with the setting (SG_SETTINGS); the next match
  // is against it (docs/simulator.md)
  document.getElementById("vs-start").onclick = () => {
    const v = document.getElementById("vs-side").value;
    document.getElementById("fw-status").textContent = "restarting…";
    document.getElementById("vs-note").textContent = "restarting the board…";
    post("/api/match", { computer: v === "" ? null : Number(v), learn: document.getElementById("vs-learn").checked })
      .then(() => { document.getElementById("fw-status").textContent = "running"; });
  };
}

// The board's computer setting as the server runs it (the select shows the board's, not a
// default); ``confirmed``: the board just restarted with it, so the panel says what it means.
function showSettings(s, confirmed) {
  const comp = s && s.computer !== undefined && s.computer !== null ? s.computer : null;
  document.getElementById("vs-side").value = comp === null ? "" : String(comp);
  document.getElementById("vs-learn").checked = !!(s && s.learn);
  const who = comp === null ? "two players, no computer"
    : "the board plays " + (comp === 1 ? "black (you are white)" : "white (you are black)");
  const text = "next match: " + who + (s && s.learn ? ", learning mode" : "");
  document.getElementById("vs-note").textContent = confirmed
    ? "board restarted. " + text + " (a match in progress resumes as it was)" : text;
}

function log(line, decoded) {
  const pre = document.getElementById("log");
  pre.textContent += (decoded ? line.split(" ")[0] + ": " + decoded : line) + "\n";
  if (pre.textContent.length > 20000) pre.textContent = pre.textContent.slice(-15000);
  pre.scrollTop = pre.scrollHeight;
}

function hexToBytes(h) {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

function connect() {
  const es = new EventSource("/events");
  es.addEventListener("leds", (ev) => {
    const d = JSON.parse(ev.data);
    sim.leds = hexToBytes(d.d);
    sim.frames = d.n;
    document.getElementById("frames").textContent = d.n;
    document.getElementById("fw-status").textContent = "running";
    paintLeds();
  });
  es.addEventListener("physical", (ev) => {
    if (sim.drag) return;   // the hand wins while it holds a checker
    const d = JSON.parse(ev.data);
    sim.locs = d.locs; sim.hand = d.hand;
    drawCheckers();
  });
  es.addEventListener("log", (ev) => { const d = JSON.parse(ev.data); log(d.m, d.d); });
  es.addEventListener("status", (ev) => showStatus(JSON.parse(ev.data)));
  es.addEventListener("pairing", (ev) => showPairing(JSON.parse(ev.data).code));
  es.addEventListener("summary", (ev) => showSummary(JSON.parse(ev.data).lines));
  es.addEventListener("settings", (ev) => showSettings(JSON.parse(ev.data), true));
  es.addEventListener("exit", (ev) => {
    document.getElementById("fw-status").textContent = "stopped (exit " + JSON.parse(ev.data).code + ")";
  });
  es.onerror = () => { document.getElementById("fw-status").textContent = "disconnected"; };
}

// The status panel: the firmware's own status line, put into words by the server
// (tools/sim/status.py); the page adds nothing.
function showStatus(st) {
  if (!st || !st.next) return;
  document.getElementById("next").textContent = st.next;
  for (const k of ["match", "score", "crawford", "cube", "turn", "dice", "pips", "last"]) {
    document.getElementById("st-" + k).textContent = st[k];
  }
  document.getElementById("st-verdict").textContent = st.verdict || "–";
  // the points numbered from the mover's side, as the panel's messages number them
  const black = st.side === 1;
  for (const t of document.querySelectorAll("text.pointlabel")) {
    const p = Number(t.dataset.p);
    t.textContent = black ? 25 - p : p;
  }
  document.getElementById("numbering").textContent = black ? "black's numbers" : "white's numbers";
  sim.status = st;
}

// The match's summary once it ended (the lines `gammon show` prints: tools/sim/after_match.py);
// hidden while a match is played.
function showSummary(lines) {
  const box = document.getElementById("summary");
  box.textContent = lines ? lines.join("\n") : "";
  box.hidden = !lines;
}

function showPairing(code) {
  const box = document.getElementById("pairing");
  document.getElementById("pair-code").textContent = code || "";
  box.hidden = !code;
}

function showLegend(items) {
  const ul = document.getElementById("legend");
  ul.textContent = "";
  for (const it of items) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = `rgb(${it.rgb.join(",")})`;
    li.appendChild(sw);
    li.appendChild(document.createTextNode(it.name + ": " + it.role.replace("side 0", "white (side 0)").replace("side 1", "black (side 1)")));
    ul.appendChild(li);
  }
}

async function init() {
  sim.board = await (await fetch("/board.json")).json();
  sim.cap = sim.board.leds.brightness_cap || 255;
  drawStatic();
  drawLeds();
  const st = await (await fetch("/api/state")).json();
  sim.locs = st.physical.locs; sim.hand = st.physical.hand;
  sim.leds = hexToBytes(st.leds);
  st.log.forEach((l) => log(l));
  showStatus(st.status);
  showPairing(st.pairing);
  showSummary(st.summary);
  showLegend(st.legend);
  showSettings(st.settings, false);
  document.getElementById("linkport").textContent = st.link_port ? "127.0.0.1:" + st.link_port : "off";
  drawCheckers();
  paintLeds();
  wireButtons();
  window.addEventListener("pointermove", moveDrag);
  window.addEventListener("pointerup", endDrag);
  connect();
  document.body.dataset.ready = "1";
}

init();
