// dbeast console. Plain script, no dependencies.
//
// Rules this file keeps:
//  - data from the broker (and so from agents) reaches the DOM only through
//    textContent or element values, never through an HTML parser;
//  - control and bidi characters in agent text are shown as visible escapes;
//  - every button, label, shortcut and scope name is defined here, never
//    taken from a request;
//  - the console token never stands in a URL: a one-time sign-in code
//    from the fragment is dropped from the address bar and traded for it;
//    it is sent only as an Authorization header;
//  - a statement to approve is shown whole, and a click or key decides
//    only the card the person read: new cards go last, a card that goes
//    leaves a placeholder for a moment, and a card's buttons wait a moment
//    after it appears or moves.
"use strict";

(function () {
  const TOKEN_KEY = "dbeast-console-token";
  const POLL_MS = 1000;
  const ROUTES = ["pending", "sharing", "connections", "sessions", "sources", "activity", "server"];

  // ---- token -------------------------------------------------------------
  // The page is opened with a one-time sign-in code in the fragment, never
  // with the token: the address stays in the browser's history. The code is
  // dropped from the address bar at once and traded for the token, which
  // stays in this tab's session storage.
  let token = "";
  let signInCode = "";
  let focusRequest = ""; // a request named by the link that opened the page
  // takeCode moves a sign-in code from the address into signInCode, at
  // load and whenever a link is opened in an already open tab (only the
  // fragment changes then, and the page does not reload).
  function takeCode() {
    const m = /^#code=(dbo_[A-Za-z0-9_-]{1,200})(?:&request=(req_[A-Za-z0-9_-]{1,80}))?(?:&|$)/.exec(location.hash);
    if (!m) return false;
    signInCode = m[1];
    // The tray's Review names the request to show.
    if (m[2]) focusRequest = m[2];
    history.replaceState(null, "", location.pathname + "#/pending");
    return true;
  }
  takeCode();
  try { token = sessionStorage.getItem(TOKEN_KEY) || ""; } catch (e) { token = ""; }

  async function signIn() {
    let resp;
    try {
      resp = await fetch("/api/signin", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ code: signInCode }),
        credentials: "omit",
        cache: "no-store",
        redirect: "error",
        referrerPolicy: "no-referrer",
      });
    } catch (e) {
      return false;
    }
    if (resp.status !== 200) return false;
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (!data || typeof data.token !== "string" || !/^dbk_[A-Za-z0-9_-]{1,200}$/.test(data.token)) return false;
    token = data.token;
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* memory only */ }
    return true;
  }

  const SIGN_IN_HELP = "Run dbeast console in a terminal for a fresh sign-in link (Open console in the tray gives one too; each link works once), or sign in below with the console API token.";

  // ---- helpers -----------------------------------------------------------
  function $(id) { return document.getElementById(id); }

  // el builds an element; text is set with textContent only.
  function el(tag, opts, children) {
    const e = document.createElement(tag);
    if (opts) {
      if (opts.cls) e.className = opts.cls;
      if (opts.text !== undefined) e.textContent = String(opts.text);
      if (opts.type) e.type = opts.type;
      if (opts.title) e.title = opts.title;
      if (opts.attrs) for (const k of Object.keys(opts.attrs)) e.setAttribute(k, opts.attrs[k]);
      if (opts.onclick) e.addEventListener("click", opts.onclick);
    }
    if (children) for (const c of children) if (c) e.appendChild(c);
    return e;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // HIDDEN matches characters that draw nothing or change how the text
  // around them is drawn: format and bidi controls, private-use and
  // unassigned code points, line and paragraph separators, variation
  // selectors, tag characters, the Hangul fillers and the combining
  // grapheme joiner. Spaces other than U+0020 are matched by SPACE.
  const HIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\u034f\u115f\u1160\u180e\u3164\uffa0\ufe00-\ufe0f\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/u;
  const SPACE = /\p{Zs}/u;
  const MARK = /\p{M}/u;

  // escapeFor returns the visible form of one character that must not be
  // rendered as itself, or "" when it may be. base is the last character
  // before it that is no combining mark: a mark on an ASCII character
  // (such as U+0338 over "=", drawn as "≠") is escaped, however many marks
  // come between; on a letter of another script it is part of the writing.
  function escapeFor(ch, base) {
    const c = ch.codePointAt(0);
    if (c === 0x0a || c === 0x09 || c === 0x20) return ""; // newline, tab and space keep their layout
    // \xNN rather than the control pictures (␀…): every monospace font
    // has these glyphs.
    if (c < 0x20 || c === 0x7f) return "\\x" + c.toString(16).padStart(2, "0");
    if (HIDDEN.test(ch) || SPACE.test(ch) || (MARK.test(ch) && (base === undefined || base.codePointAt(0) < 0x80))) {
      return c > 0xffff ? "\\u{" + c.toString(16) + "}" : "\\u" + c.toString(16).padStart(4, "0");
    }
    return "";
  }

  // visibleText returns text with every hidden character replaced by its
  // visible escape (used for short cells and for tests).
  function visibleText(s) {
    let out = "";
    let base;
    for (const ch of String(s)) {
      out += escapeFor(ch, base) || ch;
      if (!MARK.test(ch)) base = ch;
    }
    return out;
  }

  // quotedName is an identifier as the person must read it: in double
  // quotes (a quote inside doubled), hidden characters made visible and a
  // space at either end written \u0020, so "customers " cannot pass for
  // "customers".
  function quotedName(s) {
    const v = visibleText(String(s == null ? "" : s)).replace(/^ +| +$/g, function (m) { return "\\u0020".repeat(m.length); });
    return '"' + v.replace(/"/g, '""') + '"';
  }

  // tableName is schema.name with both parts quoted (quotedName).
  function tableName(schema, name) { return quotedName(schema) + "." + quotedName(name); }

  // appendData appends agent-supplied text to node as inert text: plain
  // runs become text nodes, hidden characters become marked escape spans.
  function appendData(node, s) {
    let run = "";
    let base;
    for (const ch of String(s == null ? "" : s)) {
      const esc = escapeFor(ch, base);
      if (!MARK.test(ch)) base = ch;
      if (!esc) { run += ch; continue; }
      if (run) { node.appendChild(document.createTextNode(run)); run = ""; }
      node.appendChild(el("span", { cls: "ctl", text: esc, title: "hidden character made visible" }));
    }
    if (run) node.appendChild(document.createTextNode(run));
    return node;
  }

  // fillData replaces node's content with agent-supplied text.
  function fillData(node, s) {
    clear(node);
    return appendData(node, s);
  }

  // fillStatement shows a statement whole: nothing is cut or scrolled
  // away, and the blank stretches that could push the end of a statement
  // out of sight (three or more blank lines, sixteen or more spaces and
  // tabs in a row) are drawn as one marked gap saying what they hold.
  function fillStatement(node, s) {
    clear(node);
    const lines = String(s == null ? "" : s).split("\n");
    for (let i = 0; i < lines.length; i++) {
      let j = i;
      while (j < lines.length && /^[ \t\r]*$/.test(lines[j])) j++;
      if (j - i >= 3) {
        node.appendChild(el("span", { cls: "ctl gap", text: "⟨" + (j - i) + " blank lines⟩", title: "blank lines of the statement, shortened" }));
        if (j < lines.length) node.appendChild(document.createTextNode("\n"));
        i = j - 1;
        continue;
      }
      const parts = lines[i].split(/([ \t]{16,})/);
      for (let k = 0; k < parts.length; k++) {
        if (k % 2 === 1) {
          node.appendChild(el("span", { cls: "ctl gap", text: "⟨" + parts[k].length + " blanks⟩", title: "spaces and tabs of the statement, shortened" }));
        } else {
          appendData(node, parts[k]);
        }
      }
      if (i < lines.length - 1) node.appendChild(document.createTextNode("\n"));
    }
    return node;
  }

  function dataSpan(s, cls) { return fillData(el("span", { cls: cls || "data-inline" }), s); }

  // notice shows msg in the page's notice bar until the person closes it
  // or, for kind "link" (dbeast cannot be reached or refuses the page),
  // until dbeast answers again. A polled page must not wipe an error the
  // person has not read.
  let noticeKind = "";
  function notice(msg, kind) {
    $("notice-text").textContent = msg || "";
    $("notice").hidden = !msg;
    noticeKind = msg ? kind || "error" : "";
  }
  function clearNotice(kind) { if (noticeKind === kind) notice(""); }
  $("notice-close").addEventListener("click", function () { notice(""); });

  // status sets a status line beside a form. It stays until the next
  // action on that form.
  function status(id, msg, bad) {
    const s = typeof id === "string" ? $(id) : id;
    s.textContent = msg || "";
    s.classList.toggle("bad", !!bad);
  }

  // confirmClick is the one confirm pattern of every destructive action:
  // the first click turns the button into "Confirm …" for CONFIRM_MS,
  // only a second click in that time acts. Returns the button.
  const CONFIRM_MS = 5000;
  function confirmClick(btn, confirmText, act) {
    const text = btn.textContent;
    let armedUntil = 0;
    let timer = 0;
    btn.addEventListener("click", async function (ev) {
      if (ev.detail > 1) return; // a double click is one click
      if (Date.now() > armedUntil) {
        armedUntil = Date.now() + CONFIRM_MS;
        btn.textContent = confirmText;
        btn.classList.add("confirming");
        clearTimeout(timer);
        timer = setTimeout(function () { btn.textContent = text; btn.classList.remove("confirming"); armedUntil = 0; }, CONFIRM_MS);
        return;
      }
      armedUntil = 0;
      clearTimeout(timer);
      btn.textContent = text;
      btn.classList.remove("confirming");
      btn.disabled = true;
      // dbeastHeld keeps a button off that act's outcome made pointless
      // (Stop server once the server is stopped).
      try { await act(); } finally { btn.disabled = !!btn.dbeastHeld; }
    });
    return btn;
  }

  function age(iso) {
    const t = Date.parse(iso);
    if (isNaN(t)) return "";
    let s = Math.max(0, Math.round((Date.now() - t) / 1000));
    if (s < 60) return s + " s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min";
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  function timeOf(iso) {
    const t = new Date(iso);
    return isNaN(t) ? "" : t.toLocaleTimeString();
  }

  // api calls the console API. It resolves to {status, body}; body is the
  // decoded JSON or null. Errors never show the response text unchecked.
  async function api(method, path, body) {
    const init = {
      method: method,
      headers: { "Authorization": "Bearer " + token },
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
      referrerPolicy: "no-referrer",
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await fetch(path, init);
    } catch (e) {
      notice("The console cannot reach dbeast. Is it still running?", "link");
      brokerGone("dbeast stopped: this request is gone. Nothing here can be decided any more.");
      return { status: 0, body: null };
    }
    if (resp.status === 401) {
      notice("The console is not signed in to this dbeast. " + SIGN_IN_HELP, "link");
      brokerGone("dbeast restarted or signed this page out: this request is gone. Nothing here can be decided any more.");
      offerSignIn();
    } else {
      // Only a notice about the link to dbeast goes by itself once dbeast
      // answers; any other stays until the person closes it.
      clearNotice("link");
      document.body.classList.remove("signed-out");
    }
    let data = null;
    const ct = resp.headers.get("Content-Type") || "";
    if (ct.indexOf("application/json") === 0) {
      try { data = await resp.json(); } catch (e) { data = null; }
    }
    // A change may have been put in force without being saved.
    if (method !== "GET" && path !== "/api/signin") checkSaved();
    return { status: resp.status, body: data };
  }

  function errorText(r, fallback) {
    // A refused source carries the engine's static reason (never the DSN).
    if (r.body && typeof r.body.error === "string" && typeof r.body.reason === "string" && r.body.reason) return visibleText(r.body.error + ": " + r.body.reason);
    if (r.body && typeof r.body.error === "string") return visibleText(r.body.error);
    return fallback + " (HTTP " + r.status + ")";
  }

  // ---- routing -----------------------------------------------------------
  let route = "pending";
  // A route may name a request: #/activity/req_… opens the Activity
  // page searching for it (the link under an allowed request's outcome).
  let routeRequest = "";
  function currentRoute() {
    const m = /^#\/([a-z]+)(?:\/(req_[A-Za-z0-9_-]{1,80}))?$/.exec(location.hash);
    routeRequest = m && m[2] ? m[2] : "";
    return m && ROUTES.indexOf(m[1]) >= 0 ? m[1] : "pending";
  }

  function show() {
    route = currentRoute();
    // Opening the sharing page reads each source's tables afresh.
    if (route === "sharing") proven.clear();
    for (const r of ROUTES) $("page-" + r).hidden = r !== route;
    for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.route === route);
    refreshPage();
  }

  function refreshPage() {
    switch (route) {
      case "pending": return pollPending();
      case "sharing": return loadSharing();
      case "connections": return loadConnections();
      case "sessions": return loadSessions();
      case "sources": return loadSources();
      case "activity": return loadActivity();
      case "server": return loadServer();
    }
  }

  // ---- pending approvals -------------------------------------------------
  // The page's own scope names. A scope the page does not know is never
  // offered, whatever the broker lists.
  const SCOPE_LABELS = {
    once: "Only this request",
    table: "This table, for the rest of the session",
    tables: "These tables, for the rest of the session",
    source: "Read this source, for the rest of the session",
    document: "This document snapshot, for the rest of the session",
    full_sql: "Full SQL with the connection's privileges, for the rest of the session",
  };
  const WRITE_SCOPES = { full_sql: true };
  // SCOPE_NOTES say what a scope grants when its label cannot.
  const SCOPE_NOTES = {
    tables: "a read grant on each table, as if each were allowed alone: later reads of one of these tables run without asking; a read that joins them asks again",
  };
  const OP_NAMES = {
    read: "read", insert: "write: INSERT", update: "write: UPDATE", delete: "write: DELETE",
    full: "full SQL", metadata: "metadata", document: "document read",
  };
  const FULL_SQL_WARNING = "Full SQL is not a sandbox: it runs with the connection account's privileges and may modify data.";
  const MYSQL_WARNING = "On MySQL a fully qualified name can reach another database.";

  // Where cards appear and go is part of what the person approves: a
  // click must land on the card the person read. So new requests are added
  // last (nothing already shown moves down), a card that goes leaves a
  // placeholder of its height for a moment, and a card's buttons wait
  // ARM_MS after it appears or moves before they take a click or a key.
  const ARM_MS = 1000;
  const GONE_MS = 1500;
  // A read longer than FOLD_LINES lines shows its first and last
  // FOLD_KEEP lines, with its middle behind "Show all", and its Allow
  // waits until the person opened it. Full SQL and writes are never
  // folded: what they change must be read whole before they are allowed.
  const FOLD_LINES = 40;
  const FOLD_KEEP = 12;
  const FOLDABLE = { read: true, metadata: true, document: true };

  const cards = new Map(); // request id -> card element of a pending request
  let pendingBusy = false;
  let firstPoll = true; // the requests waiting when the page opened are not "new"

  async function pollPending() {
    if (pendingBusy || !token) return;
    pendingBusy = true;
    try {
      // status=pending lists only the requests waiting for the person; an
      // approved or grant-covered request waiting for a slot is not one.
      const r = await api("GET", "/api/requests?status=pending");
      if (r.status === 404 || r.status === 405) {
        $("pending-unavailable").hidden = false;
        setPendingCount(0);
        return;
      }
      if (r.status !== 200 || !r.body || !Array.isArray(r.body.requests)) return;
      $("pending-unavailable").hidden = true;
      renderPending(r.body.requests.filter(function (q) { return q && q.status === "pending"; }));
    } finally {
      pendingBusy = false;
    }
  }

  // brokerGone marks every card dead when dbeast stops or restarts (a
  // restarted dbeast has none of these requests): its buttons off for
  // good, a message over it, the count cleared. The cards stay until
  // dbeast answers again, so the person sees what went.
  function brokerGone(text) {
    for (const [id, card] of cards) {
      cards.delete(id);
      for (const b of card.querySelectorAll("button, input")) b.disabled = true;
      card.classList.add("gone", "dead");
      card.setAttribute("inert", "");
      card.removeAttribute("data-request-id");
      card.setAttribute("data-gone-id", id);
      card.setAttribute("data-gone-text", text);
    }
    setPendingCount(0);
    if (token && !document.title.startsWith("dbeast: not connected")) document.title = "dbeast: not connected";
  }

  function setPendingCount(n) {
    document.title = n > 0 ? "(" + n + ") dbeast: " + n + " pending" : "dbeast console";
    const c = $("pending-count");
    c.textContent = String(n);
    c.hidden = n === 0;
    const icon = $("favicon");
    const want = n > 0 ? "/favicon-pending.svg" : "/favicon.svg";
    if (icon.getAttribute("href") !== want) icon.setAttribute("href", want);
  }

  // renderPending shows list (the broker lists newest first) oldest first.
  function renderPending(list) {
    const list$ = $("pending-list");
    // Cards of a dbeast that stopped go once it answers again.
    for (const dead of list$.querySelectorAll(".card.dead")) dead.remove();
    const before = screenTops();
    const ordered = list.slice().reverse();
    const keep = new Set();
    const fresh = [];
    for (const q of ordered) {
      const id = String(q.id);
      keep.add(id);
      if (!cards.has(id)) {
        const card = buildCard(q);
        cards.set(id, card);
        list$.appendChild(card);
        fresh.push(q);
      }
    }
    for (const [id, card] of cards) {
      if (!keep.has(id) && !card.dbeastBusy) leave(card, id, "No longer waiting for your decision: withdrawn by the agent, expired, or decided elsewhere.");
    }
    $("pending-empty").hidden = list$.children.length > 0;
    noteMoves(before);
    setPendingCount(cards.size);
    tickAges();
    if (!firstPoll && fresh.length) announce(fresh);
    if (firstPoll) list$.setAttribute("data-loaded", ""); // the list is the broker's, not the empty page's
    firstPoll = false;
    if (focusRequest && cards.has(focusRequest)) {
      const card = cards.get(focusRequest);
      focusRequest = "";
      card.scrollIntoView({ block: "start" });
      card.focus({ preventScroll: true });
      noteMoves(null);
    }
  }

  // leave turns a card into a placeholder of the same height (its content
  // hidden and inert, a fixed message over it), so that the cards below do
  // not move under the pointer at once.
  function leave(card, id, text) {
    cards.delete(id);
    for (const b of card.querySelectorAll("button")) b.disabled = true;
    card.classList.add("gone");
    card.setAttribute("inert", "");
    card.removeAttribute("data-request-id");
    card.setAttribute("data-gone-id", id);
    card.setAttribute("data-gone-text", text);
    setTimeout(function () {
      const before = screenTops();
      card.remove();
      $("pending-empty").hidden = $("pending-list").children.length > 0;
      noteMoves(before);
    }, GONE_MS);
  }

  // noteMoves arms every card that appeared or moved since it was last
  // measured: in the document, or on the screen across one of the page's
  // own changes (before is the screen positions from just before it; a
  // shorter page makes the browser scroll back, which moves every card
  // under the pointer while their place in the document stays).
  function noteMoves(before) {
    for (const card of cards.values()) {
      const screenTop = card.getBoundingClientRect().top;
      const top = screenTop + window.scrollY;
      const moved = before && before.has(card) && before.get(card) !== screenTop;
      if (card.dbeastTop !== top || moved) {
        card.dbeastTop = top;
        arm(card);
      }
    }
  }

  // screenTops measures where the cards are on the screen now.
  function screenTops() {
    const m = new Map();
    for (const card of cards.values()) m.set(card, card.getBoundingClientRect().top);
    return m;
  }

  // held reports whether decision button b of card stays off once armed:
  // Confirm full SQL until the alias is typed, Allow (and Confirm) while
  // part of the statement is folded away.
  function held(card, b) {
    const a = b.dataset.action;
    if (card.dbeastFolded && (a === "allow" || a === "confirm-full")) return true;
    return a === "confirm-full" && !card.dbeastTyped;
  }

  // arm disables a card's decision buttons for ARM_MS.
  function arm(card) {
    const buttons = card.querySelectorAll("button[data-action]");
    for (const b of buttons) b.disabled = true;
    card.classList.add("arming");
    clearTimeout(card.dbeastArm);
    card.dbeastArm = setTimeout(function () {
      card.classList.remove("arming");
      // A decision in flight keeps its buttons off; decide turns them
      // back on if it fails. Confirm full SQL waits for the alias.
      if (!card.dbeastBusy) for (const b of buttons) b.disabled = held(card, b);
    }, ARM_MS);
  }

  function field(label, value) {
    return el("div", { cls: "field" }, [el("span", { cls: "label", text: label }), value]);
  }

  // duration is a short "1 min 5 s" for seconds s.
  function duration(s) {
    s = Math.max(0, Math.round(s));
    if (s < 60) return s + " s";
    const m = Math.floor(s / 60);
    if (m < 60) return m + " min" + (s % 60 ? " " + (s % 60) + " s" : "");
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }

  // tickAges updates every card's age and the time left to decide.
  function tickAges() {
    const now = Date.now();
    for (const card of cards.values()) {
      const made = card.dbeastCreated, due = card.dbeastDeadline;
      const span = card.querySelector(".age");
      if (!span) continue;
      let text = isNaN(made) ? "" : "waiting " + duration((now - made) / 1000);
      if (!isNaN(due)) {
        const left = (due - now) / 1000;
        text += (text ? " · " : "") + (left > 0 ? duration(left) + " left to decide" : "time to decide is up");
        card.classList.toggle("due-soon", left < 60);
      }
      span.textContent = text;
    }
  }

  // summaryOf names what a statement does, for the top of a long card:
  // the operation, the tables the broker proved and the functions the
  // statement calls (words followed by "(", from the shown text; a hint
  // for reading, not a check).
  function functionsOf(text) {
    const seen = new Set();
    const re = /([A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?)\s*\(/g;
    const skip = new Set(["in", "values", "exists", "as", "on", "using", "over", "filter", "any", "all", "some", "from", "join", "where", "and", "or", "not", "select", "insert", "into", "table", "with", "recursive", "lateral", "cast"]);
    let m;
    while ((m = re.exec(text)) && seen.size < 20) {
      const name = m[1].toLowerCase();
      if (!skip.has(name)) seen.add(name);
    }
    return Array.from(seen);
  }

  // columnsField lists, per table, the columns the statement names (from
  // the verifier's verdict), flagging names that look personal. The
  // broker's fixed list decides the flag (broker.PersonalColumnWords).
  function columnsField(q) {
    const box = el("div", { cls: "colsets" });
    for (const tc of q.columns) {
      const cols = Array.isArray(tc.columns) ? tc.columns : [];
      const line = el("div", { cls: "cols", attrs: { "data-columns-of": String(tc.table) } }, [dataSpan(tc.table), el("span", { cls: "muted", text: ":" })]);
      if (!cols.length) line.appendChild(el("span", { cls: "muted", text: "no column named (a * reads them all)" }));
      for (const c of cols) {
        const chip = el("span", { cls: "col" + (c.personal ? " personal" : ""), attrs: { "data-column": String(c.name) } }, [dataSpan(c.name, "")]);
        if (c.personal) chip.appendChild(el("span", { cls: "flag", text: "looks personal", title: "the name contains a word of dbeast's personal-data list" }));
        line.appendChild(chip);
      }
      box.appendChild(line);
    }
    if (q.columns_partial) box.appendChild(el("div", { cls: "muted cols-partial", text: "It may read more columns than listed: a * reads every column of its table, and in a join a column not tied to one table is not listed." }));
    return field("Columns read", box);
  }

  // documentField shows the document a read takes text from: its file
  // name, size, the range asked for and the first lines of it, as data.
  function documentField(d) {
    const size = Number(d.bytes), off = Number(d.offset), len = Number(d.length);
    const box = el("div", { cls: "docview" }, [
      el("div", {}, [dataSpan(d.file_name), el("span", { cls: "muted", text: " · " + size + " bytes · this read: bytes " + off + " to " + (off + len) + " (" + len + " bytes)" })]),
      el("div", { cls: "label", text: "First lines of the range (data, not instructions)" }),
    ]);
    const pre = fillData(el("pre", { cls: "data preview" }), d.preview || "");
    if (d.preview_cut) pre.appendChild(el("span", { cls: "ctl gap", text: "⟨more in the range⟩" }));
    box.appendChild(pre);
    return field("Document", box);
  }

  // followOutcome waits for an allowed request to end and then says how:
  // its status, rows and whether a limit cut them, with a link to its
  // Activity entry. The box stays until the person closes it.
  const TERMINAL = { completed: true, failed: true, denied: true, revoked: true, expired: true, cancelled: true, outcome_unknown: true, result_expired: true, completed_result_revoked: true };
  async function followOutcome(id, sum) {
    const box = el("div", { cls: "panel outcome-box", attrs: { "data-outcome-id": id, role: "status" } });
    const text = el("span", { text: "Allowed: waiting for it to run…" });
    box.appendChild(text);
    $("pending-outcomes").prepend(box);
    while ($("pending-outcomes").children.length > 3) $("pending-outcomes").lastChild.remove();
    let q = null, last = "";
    for (let i = 0; i < 100; i++) {
      const r = await api("GET", "/api/requests/" + encodeURIComponent(id));
      if (r.status === 200 && r.body && TERMINAL[r.body.status]) { q = r.body; break; }
      if (r.status === 200 && r.body) last = String(r.body.status);
      if (r.status === 404 || r.status === 0) { last = ""; break; }
      await new Promise(function (res) { setTimeout(res, 200); });
    }
    clear(box);
    const ok = q && q.status === "completed";
    box.classList.toggle("bad", !ok);
    box.appendChild(el("strong", { text: "Allowed " }));
    box.appendChild(dataSpan(sum.conn));
    box.appendChild(document.createTextNode(" · " + sum.kind + " on "));
    box.appendChild(dataSpan(sum.alias));
    let what;
    if (!q && last) what = " — still " + last.replace(/_/g, " ") + "; Activity will show how it ends.";
    else if (!q) what = " — dbeast no longer lists it, so its outcome is not known here.";
    else {
      const o = q.outcome || {};
      what = " — " + String(q.status).replace(/_/g, " ");
      if (typeof o.rows === "number") what += ", " + o.rows + (o.rows === 1 ? " row" : " rows");
      if (typeof o.affected_rows === "number") what += ", " + o.affected_rows + " rows changed";
      if (typeof o.bytes === "number") what += ", " + o.bytes + " bytes";
      if (ok) what += o.truncated ? ", truncated by a limit" : ", not truncated";
      if (!ok && q.error_code) what += " (" + q.error_code + ")";
      what += ".";
    }
    box.appendChild(el("span", { cls: "outcome-text", text: what }));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(el("a", { text: "See it in Activity", attrs: { href: "#/activity/" + id, "data-activity-link": id } }));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(el("button", { type: "button", cls: "small", text: "Close", onclick: function () { box.remove(); } }));
  }

  function buildCard(q) {
    const id = String(q.id);
    const readOnly = q.read_only === true;
    const isFull = q.operation === "request_sql" || q.op_kind === "full";
    const card = el("article", { cls: "card" + (isFull ? " full-sql" : ""), attrs: { tabindex: "0", "data-request-id": id } });
    card.dbeastCreated = Date.parse(q.created_at);
    card.dbeastDeadline = Date.parse(q.decision_deadline);
    card.dbeastFull = isFull;
    card.dbeastSummary = { conn: q.connection_label || q.connection_id || "", alias: q.alias || "", kind: OP_NAMES[q.op_kind] || "other" };

    // The person-named connection leads; what the agent says about itself
    // follows, in the foreign style of agent text.
    const kind = OP_NAMES[q.op_kind] || "other";
    const head = el("header", { cls: "card-head" }, [
      dataSpan(q.connection_label || q.connection_id || "(unnamed connection)", "conn"),
      el("span", { cls: "op op-" + (OP_NAMES[q.op_kind] ? q.op_kind : "other"), text: kind }),
      el("span", { cls: "muted", text: "on" }),
      dataSpan(q.alias, "alias"),
      el("span", { cls: "muted", text: (q.source_kind || "") + (readOnly ? " · read only" : "") }),
      el("span", { cls: "age" }),
    ]);
    card.appendChild(head);
    // The session's label is a name the agent gave its session at
    // begin_session: shown as that, never as a message.
    card.appendChild(field("Session label", el("span", { cls: "foreign" }, [
      dataSpan(q.client_label ? q.client_label : "(none)", "agent"),
      el("span", { cls: "tag unverified", text: "chosen by the agent, not verified" }),
    ])));
    card.appendChild(field("Operation", dataSpan(q.operation)));
    const tables = Array.isArray(q.tables) ? q.tables : [];
    const writes = Array.isArray(q.writes_tables) ? q.writes_tables : [];
    if (isFull) {
      const banner = el("p", { cls: "full-banner" });
      if (q.op_kind === "full") {
        banner.textContent = "FULL SQL — may change or delete data. " + (writes.length ? "It writes: " : "The tables it writes cannot be known before it runs.");
        if (writes.length) appendData(banner, writes.join(", "));
      } else {
        banner.textContent = "WRITE — changes rows of: ";
        appendData(banner, (tables.length ? tables : ["(unknown)"]).join(", "));
      }
      card.appendChild(banner);
    }
    if (writes.length) card.appendChild(field("Writes", dataSpan(writes.join(", "))));
    if (tables.length) card.appendChild(field("Tables", dataSpan(tables.join(", "))));
    if (Array.isArray(q.columns) && q.columns.length) card.appendChild(columnsField(q));
    if (q.document) card.appendChild(documentField(q.document));

    const text = String(q.statement == null ? "" : q.statement);
    const lines = text.split("\n");
    // Blank runs are drawn shortened (fillStatement), so only lines with
    // text count towards folding.
    const long = lines.filter(function (l) { return l.trim() !== ""; }).length > FOLD_LINES;
    const fold = long && !isFull && FOLDABLE[q.op_kind] === true;
    if (long) {
      // The functions named are a partial hint read from the text:
      // quoting and comments can hide a call from it.
      const fns = functionsOf(text);
      card.appendChild(el("div", { cls: "summary" }, [
        el("strong", { text: "Summary: " }),
        document.createTextNode(kind + (tables.length ? " · tables " : "")),
        tables.length ? dataSpan(tables.join(", ")) : null,
        document.createTextNode(fns.length ? " · functions seen (partial hint, not a check: quoting or comments can hide calls) " : ""),
        fns.length ? dataSpan(fns.join(", ")) : null,
      ]));
    }
    card.appendChild(el("div", { cls: "label", text: q.op_kind === "document" ? "Document and range" : "Statement that will run" }));
    const pre = el("pre", { cls: "data stmt" });
    card.appendChild(pre);
    if (fold) {
      // The middle is folded; Allow waits until the person opens it
      // ("Show all"). Deny never waits.
      card.dbeastFolded = true;
      const head = lines.slice(0, FOLD_KEEP).join("\n");
      const tail = lines.slice(lines.length - FOLD_KEEP).join("\n");
      fillStatement(pre, head);
      const more = el("button", { type: "button", cls: "fold", text: "Show all " + lines.length + " lines (" + (lines.length - 2 * FOLD_KEEP) + " folded here; Allow waits until you read them)" });
      const rest = el("span");
      fillStatement(rest, tail);
      pre.appendChild(document.createTextNode("\n"));
      pre.appendChild(more);
      pre.appendChild(document.createTextNode("\n"));
      pre.appendChild(rest);
      more.addEventListener("click", function () {
        const before = screenTops();
        fillStatement(pre, text);
        card.dbeastFolded = false;
        noteMoves(before);
        if (!card.classList.contains("arming") && !card.dbeastBusy) {
          for (const b of card.querySelectorAll("button[data-action]")) b.disabled = held(card, b);
        }
      });
    } else {
      fillStatement(pre, text);
    }
    const n = lines.length;
    // The size of the statement; a document read's is its range, shown
    // above with the document.
    if (q.op_kind !== "document") card.appendChild(el("div", { cls: "muted stmt-size", text: "statement: " + n + (n === 1 ? " line, " : " lines, ") + Array.from(text).length + " characters" }));

    if (isFull) {
      card.appendChild(el("p", { cls: "warn full", text: FULL_SQL_WARNING + (q.source_kind === "mysql" ? " " + MYSQL_WARNING : "") }));
    }

    const scopes = el("fieldset", { cls: "scopes" }, [el("legend", { text: "Allow for" })]);
    const offered = (Array.isArray(q.scopes) ? q.scopes : []).filter(function (s) {
      return Object.prototype.hasOwnProperty.call(SCOPE_LABELS, s) && !(readOnly && WRITE_SCOPES[s]) && !(s === "full_sql" && !isFull);
    });
    const seen = {};
    for (const s of offered) {
      if (seen[s]) continue;
      seen[s] = true;
      const input = el("input", { type: "radio", attrs: { name: "scope-" + id, value: s } });
      if (s === "once") input.checked = true; // the default; full SQL never is
      scopes.appendChild(el("label", { cls: "scope" + (s === "full_sql" ? " scope-full" : "") }, [input, document.createTextNode(" " + SCOPE_LABELS[s]),
        s === "tables" ? el("span", { cls: "muted", text: " (" + tables.length + " tables: " + visibleText(tables.join(", ")) + ") — " + SCOPE_NOTES.tables }) : null]));
    }
    card.appendChild(scopes);

    const msg = el("span", { cls: "status" });
    const allow = el("button", { type: "button", cls: isFull ? "allow-full" : "allow", text: isFull ? "Allow full SQL…" : "Allow (A)", attrs: { "data-action": "allow" } });
    const deny = el("button", { type: "button", cls: "deny", text: "Deny (D)", attrs: { "data-action": "deny" } });
    // A second click of a double click is never a decision: after the
    // first, another card may stand where this one was.
    allow.addEventListener("click", function (ev) { if (ev.detail <= 1) decide(card, id, "allow", msg); });
    deny.addEventListener("click", function (ev) { if (ev.detail <= 1) decide(card, id, "deny", msg); });
    card.appendChild(el("div", { cls: "row actions" }, [allow, deny, msg]));
    if (isFull) card.appendChild(fullConfirm(card, id, q, msg));
    return card;
  }

  // fullConfirm is full SQL's second step: the person types the source's
  // alias (as shown) and then presses a separate Confirm. Neither a key
  // nor one click can approve full SQL.
  function fullConfirm(card, id, q, msg) {
    const want = visibleText(q.alias || "") || "full sql";
    const input = el("input", { attrs: { "aria-label": "type the source alias to confirm", autocomplete: "off", spellcheck: "false" } });
    const ok = el("button", { type: "button", cls: "allow-full", text: "Confirm full SQL", attrs: { "data-action": "confirm-full" } });
    ok.disabled = true;
    const cancel = el("button", { type: "button", text: "Cancel", onclick: function () { box.hidden = true; input.value = ""; card.dbeastTyped = false; ok.disabled = true; } });
    input.addEventListener("input", function () {
      card.dbeastTyped = input.value === want;
      ok.disabled = held(card, ok) || card.classList.contains("arming") || !!card.dbeastBusy;
    });
    ok.addEventListener("click", function (ev) {
      if (ev.detail <= 1 && card.dbeastTyped && !box.hidden) decide(card, id, "allow", msg, true);
    });
    const box = el("div", { cls: "confirm-full" }, [
      el("label", {}, [document.createTextNode("To allow full SQL, type the source alias "), el("code", { text: want }), document.createTextNode(": "), input]),
      el("div", { cls: "row" }, [ok, cancel]),
    ]);
    box.hidden = true;
    card.dbeastConfirm = { box: box, input: input };
    return box;
  }

  async function decide(card, id, action, msg, confirmed) {
    if (card.dbeastBusy || !cards.has(id)) return;
    // A card that moved since it was measured is re-armed, not decided.
    const top = card.getBoundingClientRect().top + window.scrollY;
    if (top !== card.dbeastTop) {
      card.dbeastTop = top;
      arm(card);
      msg.textContent = "This request just moved; read it again.";
      return;
    }
    if (action === "allow" && card.dbeastFolded) {
      msg.textContent = "Show all of the statement before allowing it.";
      return;
    }
    if (action === "allow" && card.dbeastFull && !(confirmed && card.dbeastTyped)) {
      // The first step only opens the second.
      const c = card.dbeastConfirm;
      const before = screenTops();
      c.box.hidden = false;
      noteMoves(before);
      c.input.focus();
      msg.textContent = "Full SQL needs a second step below.";
      return;
    }
    let scope = "";
    if (action === "allow") {
      const chosen = card.querySelector("input[type=radio]:checked");
      if (!chosen) { msg.textContent = "Choose what to allow first."; return; }
      scope = chosen.value;
    }
    const buttons = card.querySelectorAll("button[data-action]");
    card.dbeastBusy = true;
    for (const b of buttons) b.disabled = true;
    let r;
    try {
      r = action === "allow"
        ? await api("POST", "/api/requests/" + encodeURIComponent(id) + "/approve", { scope: scope })
        : await api("POST", "/api/requests/" + encodeURIComponent(id) + "/deny", {});
    } finally {
      card.dbeastBusy = false;
    }
    if (r.status === 200) {
      if (cards.has(id)) leave(card, id, action === "allow" ? "Allowed." : "Denied.");
      if (action === "allow") followOutcome(id, card.dbeastSummary);
      pollPending();
      return;
    }
    // A card that went dead meanwhile (dbeast stopped) stays off.
    if (cards.has(id) && !card.classList.contains("arming")) for (const b of buttons) b.disabled = held(card, b);
    msg.textContent = errorText(r, action === "allow" ? "Approval failed" : "Deny failed");
  }

  // Keyboard shortcuts act only on the request card that has focus. A
  // never approves full SQL: on such a card it only says so.
  document.addEventListener("keydown", function (ev) {
    if (route !== "pending" || ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
    const t = ev.target;
    if (t && (t.tagName === "INPUT" && t.type !== "radio" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    const card = t && t.closest ? t.closest("article.card") : null;
    if (!card) return;
    const key = ev.key.toLowerCase();
    const action = key === "a" ? "allow" : key === "d" ? "deny" : "";
    if (!action) return;
    ev.preventDefault();
    if (action === "allow" && card.dbeastFull) {
      const msg = card.querySelector(".actions .status");
      if (msg) msg.textContent = "A does not approve full SQL: use Allow full SQL… and type the alias.";
      return;
    }
    card.querySelector("button[data-action=" + action + "]").click();
  });

  // ---- attention: desktop notifications, favicon, sound ------------------
  // After the person opts in, a request that starts waiting raises one
  // browser notification per poll (one per burst; the tag replaces the
  // last one), and optionally a short tone. Clicking it shows the card.
  const NOTIFY_KEY = "dbeast-console-notify";
  const SOUND_KEY = "dbeast-console-sound";
  function pref(key) { try { return localStorage.getItem(key) === "on"; } catch (e) { return false; } }
  function setPref(key, on) { try { localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* this tab only */ } }

  function renderAttention() {
    const can = typeof Notification === "function";
    const granted = can && Notification.permission === "granted";
    const on = granted && pref(NOTIFY_KEY);
    $("notify-toggle").textContent = on ? "Turn off desktop notifications" : "Turn on desktop notifications";
    $("notify-toggle").disabled = !can;
    $("notify-state").textContent = !can ? "This browser has no desktop notifications."
      : Notification.permission === "denied" ? "The browser blocks notifications for this page." : on ? "On." : "Off.";
    $("sound-toggle").checked = pref(SOUND_KEY);
  }
  $("notify-toggle").addEventListener("click", async function () {
    if (typeof Notification !== "function") return;
    if (pref(NOTIFY_KEY) && Notification.permission === "granted") {
      setPref(NOTIFY_KEY, false);
    } else {
      let p = Notification.permission;
      if (p !== "granted") { try { p = await Notification.requestPermission(); } catch (e) { p = "denied"; } }
      setPref(NOTIFY_KEY, p === "granted");
    }
    renderAttention();
  });
  $("sound-toggle").addEventListener("change", function () { setPref(SOUND_KEY, $("sound-toggle").checked); });

  // At most one notification (and one tone) per NOTIFY_QUIET_MS: requests
  // that arrive meanwhile are gathered into the next, so an agent sending
  // many requests makes one alert, not a stream.
  const NOTIFY_QUIET_MS = 4000;
  let lastAnnounce = 0;
  let heldFresh = [];
  let announceTimer = 0;
  function announce(fresh) {
    heldFresh = heldFresh.concat(fresh);
    const wait = lastAnnounce + NOTIFY_QUIET_MS - Date.now();
    if (wait > 0) {
      if (!announceTimer) announceTimer = setTimeout(function () { announceTimer = 0; announce([]); }, wait);
      return;
    }
    const still = heldFresh.filter(function (q) { return cards.has(String(q.id)); });
    heldFresh = [];
    if (!still.length) return;
    lastAnnounce = Date.now();
    alertNow(still);
  }

  function alertNow(fresh) {
    if (pref(SOUND_KEY)) beep();
    if (typeof Notification !== "function" || Notification.permission !== "granted" || !pref(NOTIFY_KEY)) return;
    let title, body;
    if (fresh.length === 1) {
      const q = fresh[0];
      title = "dbeast: " + visibleText(q.connection_label || "an agent") + " asks for " + (OP_NAMES[q.op_kind] || "other");
      const first = String(q.statement || "").split("\n").find(function (l) { return l.trim() !== ""; }) || "";
      body = visibleText(q.alias || "") + (Array.isArray(q.tables) && q.tables.length ? " · " + visibleText(q.tables.join(", ")) : "") +
        "\n" + visibleText(first.trim()).slice(0, 120) + "\nReview it in the console.";
    } else {
      title = "dbeast: " + fresh.length + " new requests wait for you";
      body = "Review them in the console.";
    }
    try {
      const n = new Notification(title, { body: body, tag: "dbeast-pending", renotify: true, requireInteraction: true });
      const id = String(fresh[0].id);
      n.addEventListener("click", function () {
        window.focus();
        if (route !== "pending") location.hash = "#/pending";
        const card = cards.get(id);
        if (card) { card.scrollIntoView({ block: "start" }); card.focus({ preventScroll: true }); }
        n.close();
      });
    } catch (e) { /* a browser may refuse; the badge and title still tell */ }
  }

  // beep plays a short quiet tone (no sound file).
  function beep() {
    try {
      const ctx = new (window.AudioContext || window.webkitAudioContext)();
      const o = ctx.createOscillator(), g = ctx.createGain();
      o.frequency.value = 880;
      g.gain.value = 0.05;
      o.connect(g); g.connect(ctx.destination);
      o.start(); o.stop(ctx.currentTime + 0.15);
      o.onended = function () { ctx.close(); };
    } catch (e) { /* no audio */ }
  }

  // ---- shared lists ------------------------------------------------------
  let connections = [];
  let sources = [];

  async function loadLists() {
    const [c, s] = await Promise.all([api("GET", "/api/connections"), api("GET", "/api/sources")]);
    if (c.status === 200 && Array.isArray(c.body)) connections = c.body;
    if (s.status === 200 && Array.isArray(s.body)) sources = s.body;
  }

  function connLabel(id) {
    if (id === "all") return "All agents";
    const c = connections.find(function (x) { return x.connection_id === id; });
    return c ? c.label || c.connection_id : id;
  }

  function sourceOf(id) { return sources.find(function (x) { return x.source_id === id; }); }

  function fillSelect(sel, items, keep) {
    const prev = keep ? sel.value : "";
    clear(sel);
    for (const it of items) {
      const o = el("option", { text: visibleText(it.label) });
      o.value = it.value;
      sel.appendChild(o);
    }
    if (prev && items.some(function (it) { return it.value === prev; })) sel.value = prev;
  }

  // ---- sharing -----------------------------------------------------------
  // One screen per connection (or All agents): a panel per source with
  // its database level and a level control for each table dbeast proved
  // on it (GET /api/sources/{id}/tables). Edits are drafts until the
  // panel's Save, and a panel with unsaved changes says so. A save that
  // narrows anything, or lets the agent change data, takes a second
  // click: narrowing revokes (the contract's rule, applied by the broker).
  let sharing = [];
  const drafts = new Map(); // connection \0 source -> {level, tables: Map "schema\0name" -> {schema, name, access}}
  const proven = new Map(); // source id -> {tables: [...]} or {error: text}
  let presetConn = ""; // a connection to open the page on ("Share a source with it now")
  const LEVELS = [
    { value: "none", label: "none (not shared)" },
    { value: "ask", label: "ask (catalog only, every access prompts)" },
    { value: "read", label: "read (read this database)" },
    { value: "read_write", label: "read_write (full SQL: may change any data)" },
  ];
  const LEVEL_RANK = { none: 0, ask: 1, read: 2, read_write: 3 };
  const TABLE_RANK = { none: 0, read: 1, read_write: 2 };

  // markSharingNav marks the Sharing tab while any draft is unsaved, so
  // changes left on another page are not forgotten.
  function markSharingNav() {
    let any = false;
    for (const k of drafts.keys()) {
      const [conn, src] = k.split("\u0000");
      if (diff(conn, src).changed) { any = true; break; }
    }
    $("share-unsaved-nav").hidden = !any;
  }

  function tkey(schema, name) { return schema + "\u0000" + name; }

  function savedEntry(conn, srcID) {
    return sharing.find(function (e) { return e.connection_id === conn && e.source_id === srcID; });
  }

  // savedDraft is the saved sharing of conn on srcID in draft form.
  function savedDraft(conn, srcID) {
    const e = savedEntry(conn, srcID);
    const tables = new Map();
    for (const t of (e && e.tables) || []) tables.set(tkey(t.schema, t.name), { schema: t.schema, name: t.name, access: t.access });
    return { level: e ? e.database_level : "none", tables: tables };
  }

  function draftOf(conn, srcID) {
    const k = conn + "\u0000" + srcID;
    if (!drafts.has(k)) drafts.set(k, savedDraft(conn, srcID));
    return drafts.get(k);
  }

  // diff compares a draft with what is saved: whether anything changed,
  // whether it narrows (a lower level or a table taken away), and whether
  // it lets the agent change data it could not change before.
  function diff(conn, srcID) {
    const d = draftOf(conn, srcID), s = savedDraft(conn, srcID);
    let changed = d.level !== s.level, narrows = LEVEL_RANK[d.level] < LEVEL_RANK[s.level];
    let writes = d.level === "read_write" && s.level !== "read_write";
    for (const [k, t] of s.tables) {
      const now = d.tables.get(k);
      const acc = now ? now.access : "none";
      if (acc !== t.access) changed = true;
      if (TABLE_RANK[acc] < TABLE_RANK[t.access]) narrows = true;
    }
    for (const [k, t] of d.tables) {
      const was = s.tables.get(k);
      if (!was) changed = true;
      if (t.access === "read_write" && (!was || was.access !== "read_write")) writes = true;
    }
    return { changed: changed, narrows: narrows, writes: writes };
  }

  async function loadSharing() {
    await loadLists();
    const r = await api("GET", "/api/sharing");
    if (r.status === 200 && Array.isArray(r.body)) sharing = r.body;
    // No connection is preselected: sharing with All agents is a choice.
    fillSelect($("share-conn"), [{ value: "", label: "choose a connection" }, { value: "all", label: "All agents" }].concat(connections.map(function (c) {
      return { value: c.connection_id, label: c.label || c.connection_id };
    })), true);
    if (presetConn && connections.some(function (c) { return c.connection_id === presetConn; })) {
      $("share-conn").value = presetConn;
      presetConn = "";
    }
    renderCurrentSharing();
    renderSharePanels();
  }

  function renderCurrentSharing() {
    const body = $("share-current");
    clear(body);
    for (const e of sharing) {
      const src = sourceOf(e.source_id);
      const tables = (e.tables || []).map(function (t) { return tableName(t.schema, t.name) + " (" + t.access + ")"; }).join(", ");
      body.appendChild(el("tr", { attrs: { "data-share": e.connection_id + ":" + e.source_id } }, [
        el("td", {}, [dataSpan(connLabel(e.connection_id))]),
        el("td", {}, [dataSpan(src ? src.alias : e.source_id)]),
        el("td", { text: e.database_level }),
        el("td", { text: tables || "—" }),
        el("td", { cls: "actions" }, [
          el("button", { type: "button", text: "Edit", attrs: { "data-action": "edit-share" }, onclick: function () {
            $("share-conn").value = e.connection_id;
            renderSharePanels();
            const p = document.querySelector('.share-src[data-source-id="' + CSS.escape(e.source_id) + '"]');
            if (p) p.scrollIntoView({ block: "start" });
          } }),
          confirmClick(el("button", { type: "button", cls: "danger", text: "Remove", attrs: { "data-action": "remove-share" } }),
            "Confirm remove: revokes grants and requests", async function () {
              const rr = await api("PUT", "/api/sharing", { connection_id: e.connection_id, source_id: e.source_id, database_level: "none", tables: [] });
              status("share-current-status", rr.status === 200 ? "Removed." : errorText(rr, "Removing failed"), rr.status !== 200);
              drafts.delete(e.connection_id + "\u0000" + e.source_id);
              await loadSharing();
            }),
        ]),
      ]));
    }
    if (!sharing.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: "Nothing is shared.", attrs: { colspan: "5" } })]));
  }

  function renderSharePanels() {
    const box = $("share-sources");
    clear(box);
    const conn = $("share-conn").value;
    status("share-conn-status", "");
    if (!conn) { box.appendChild(el("p", { cls: "empty", text: "Choose a connection (or All agents) to see and change what it may read." })); return; }
    if (!sources.length) { box.appendChild(el("p", { cls: "empty", text: "No source yet: add one on Sources & documents." })); return; }
    for (const s of sources) box.appendChild(sharePanel(conn, s));
  }

  // sharePanel is one source's sharing for conn.
  function sharePanel(conn, s) {
    const d = draftOf(conn, s.source_id);
    const ro = !!s.read_only;
    const panel = el("div", { cls: "panel share-src", attrs: { "data-source-id": s.source_id } });
    const unsaved = el("span", { cls: "unsaved", text: "Unsaved changes" });
    const st = el("span", { cls: "status share-status" });
    panel.appendChild(el("h2", {}, [dataSpan(s.alias), el("span", { cls: "muted", text: " " + s.kind + (ro ? " · read only" : "") + " " }), unsaved]));
    const level = el("select", { cls: "share-level", attrs: { "aria-label": "database level of " + visibleText(s.alias) } });
    for (const l of LEVELS) {
      const o = el("option", { text: l.label });
      o.value = l.value;
      o.disabled = ro && l.value === "read_write";
      level.appendChild(o);
    }
    level.value = d.level;
    const tbody = el("tbody");
    const save = el("button", { type: "button", cls: "primary share-save", text: "Save" });
    const discard = el("button", { type: "button", cls: "share-discard", text: "Discard changes" });
    let confirmUntil = 0, confirmTimer = 0;
    function disarm() {
      confirmUntil = 0;
      clearTimeout(confirmTimer);
      save.textContent = "Save";
      save.classList.remove("confirming");
    }
    function mark() {
      const df = diff(conn, s.source_id);
      unsaved.hidden = !df.changed;
      save.disabled = !df.changed;
      discard.hidden = !df.changed;
      disarm();
      markSharingNav();
    }
    level.addEventListener("change", function () { d.level = level.value; mark(); });
    panel.appendChild(el("div", { cls: "row" }, [el("label", {}, [document.createTextNode("Database level "), level])]));
    // A connection also has what All agents has (the union applies).
    const all = conn !== "all" ? savedEntry("all", s.source_id) : null;
    if (all && (all.database_level !== "none" || (all.tables || []).length)) {
      const ts = (all.tables || []).map(function (t) { return tableName(t.schema, t.name) + " (" + t.access + ")"; }).join(", ");
      panel.appendChild(el("p", { cls: "hint share-all", text: "All agents also gives it: database level " + all.database_level + (ts ? "; tables " + ts : "") + ". The higher of the two applies." }));
    }
    panel.appendChild(el("div", { cls: "table-wrap" }, [el("table", { cls: "grid" }, [
      el("thead", {}, [el("tr", {}, [el("th", { text: "Table" }), el("th", { text: "Access" })])]),
      tbody,
    ])]));
    function tableRow(schema, name, kind) {
      const k = tkey(schema, name);
      const group = el("span", { cls: "levels", attrs: { role: "group", "aria-label": "access of " + tableName(schema, name) } });
      function paint() {
        const cur = d.tables.has(k) ? d.tables.get(k).access : "none";
        for (const b of group.children) b.setAttribute("aria-pressed", String(b.dataset.level === cur));
      }
      for (const v of ["none", "read", "read_write"]) {
        const b = el("button", { type: "button", text: v, attrs: { "data-level": v } });
        b.disabled = ro && v === "read_write";
        b.addEventListener("click", function () {
          if (v === "none") d.tables.delete(k); else d.tables.set(k, { schema: schema, name: name, access: v });
          paint();
          mark();
        });
        group.appendChild(b);
      }
      paint();
      return el("tr", { attrs: { "data-table": schema + "." + name } }, [
        el("td", { cls: "ident", text: tableName(schema, name) + (kind && kind !== "table" ? " (" + kind + ")" : "") }),
        el("td", {}, [group]),
      ]);
    }
    function fillTables() {
      clear(tbody);
      const p = proven.get(s.source_id);
      const listed = new Set();
      if (p && Array.isArray(p.tables)) {
        for (const t of p.tables) { listed.add(tkey(t.schema, t.name)); tbody.appendChild(tableRow(String(t.schema), String(t.name), t.kind)); }
      }
      // Shared tables the catalog no longer lists (gone, or not proven
      // now) stay editable.
      for (const [k, t] of d.tables) if (!listed.has(k)) tbody.appendChild(tableRow(t.schema, t.name, "not listed now"));
      if (!tbody.children.length) {
        tbody.appendChild(el("tr", {}, [el("td", { cls: "empty", attrs: { colspan: "2" },
          text: p ? (p.error ? "The tables cannot be listed now: " + p.error : "No eligible table.") : "Reading the catalog…" })]));
      }
    }
    fillTables();
    if (!proven.has(s.source_id)) {
      api("GET", "/api/sources/" + encodeURIComponent(s.source_id) + "/tables").then(function (r) {
        proven.set(s.source_id, r.status === 200 && r.body && Array.isArray(r.body.tables) ? { tables: r.body.tables } : { error: errorText(r, "listing failed") });
        if (panel.isConnected) fillTables();
      });
    }
    discard.addEventListener("click", function () {
      drafts.delete(conn + "\u0000" + s.source_id);
      const fresh = sharePanel(conn, s);
      panel.replaceWith(fresh);
    });
    save.addEventListener("click", async function () {
      const df = diff(conn, s.source_id);
      if (!df.changed) return;
      if ((df.narrows || df.writes) && Date.now() > confirmUntil) {
        confirmUntil = Date.now() + CONFIRM_MS;
        save.textContent = df.narrows ? "Confirm: narrow and revoke" : "Confirm: allow changing data";
        save.classList.add("confirming");
        const who = visibleText(connLabel(conn));
        status(st, (df.narrows ? "This narrows what " + who + " may read: its session grants on this source are revoked and its pending, running and completed requests there end as revoked. " : "") +
          (df.writes ? "This lets " + who + " change data without asking. " : "") + "Click again to confirm.", true);
        clearTimeout(confirmTimer);
        confirmTimer = setTimeout(disarm, CONFIRM_MS);
        return;
      }
      disarm();
      const r = await api("PUT", "/api/sharing", {
        connection_id: conn, source_id: s.source_id, database_level: d.level, tables: Array.from(d.tables.values()),
      });
      if (r.status === 200) {
        drafts.delete(conn + "\u0000" + s.source_id);
        const rr = await api("GET", "/api/sharing");
        if (rr.status === 200 && Array.isArray(rr.body)) sharing = rr.body;
        renderCurrentSharing();
        const fresh = sharePanel(conn, s);
        panel.replaceWith(fresh);
        status(fresh.querySelector(".share-status"), df.narrows ? "Saved; grants and requests on this source were revoked." : "Saved.");
      } else {
        status(st, errorText(r, "Saving failed"), true);
      }
    });
    panel.appendChild(el("div", { cls: "row" }, [save, discard, st]));
    mark();
    return panel;
  }

  $("share-conn").addEventListener("change", renderSharePanels);

  // ---- connections -------------------------------------------------------
  async function loadConnections() {
    await loadLists();
    const body = $("conn-list");
    clear(body);
    for (const c of connections) {
      const btn = confirmClick(el("button", { type: "button", cls: "danger", text: "Revoke" }), "Confirm revoke", async function () {
        const r = await api("DELETE", "/api/connections/" + encodeURIComponent(c.connection_id));
        if (r.status !== 200) { notice(errorText(r, "Revoking the connection failed")); return; }
        loadConnections();
      });
      body.appendChild(el("tr", { attrs: { "data-connection-id": c.connection_id } }, [
        el("td", {}, [dataSpan(c.label || "(no label)")]),
        el("td", {}, [el("code", { text: c.connection_id })]),
        el("td", { text: timeOf(c.created_at) }),
        el("td", {}, [btn]),
      ]));
    }
    if (!connections.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: "No agent connection yet.", attrs: { colspan: "4" } })]));
  }

  // The create-connection answer carries a ready-to-paste configuration
  // for each MCP client (Claude Code, VS Code, Cursor, Claude Desktop, a
  // generic form); a chooser above the text switches between them, the
  // generic form first. Where the client can take the token from an
  // environment variable or a prompt, the configuration only refers to
  // it and the snippet's secret (shown below it) carries it. They hold
  // the token, so Done drops them.
  let connSnippets = [];
  function showSnippet() {
    const s = connSnippets.find(function (x) { return x.client === $("conn-client").value; });
    $("conn-config").textContent = s ? s.text : "";
    $("conn-where").textContent = s ? "Paste into: " + s.where : "";
    const secret = s && typeof s.secret === "string" ? s.secret : "";
    $("conn-secret").textContent = secret;
    $("conn-secret").hidden = !secret;
    $("conn-secret-where").textContent = secret ? "The token: " + (s.secret_where || "") : "";
  }
  function showSnippets(snippets, fallback) {
    let pick = $("conn-client");
    if (!pick) {
      pick = el("select", { attrs: { id: "conn-client", "aria-label": "MCP client" } });
      pick.addEventListener("change", showSnippet);
      const cfg = $("conn-config");
      cfg.parentNode.insertBefore(pick, cfg);
      cfg.parentNode.insertBefore(el("p", { attrs: { id: "conn-where" } }), cfg);
      const secret = el("pre", { cls: "data", attrs: { id: "conn-secret" } });
      secret.hidden = true;
      cfg.parentNode.insertBefore(secret, cfg.nextSibling);
      cfg.parentNode.insertBefore(el("p", { attrs: { id: "conn-secret-where" } }), secret);
    }
    clear(pick);
    connSnippets = Array.isArray(snippets) ? snippets.slice() : [];
    const generic = connSnippets.findIndex(function (x) { return x.client === "generic"; });
    if (generic > 0) connSnippets.unshift(connSnippets.splice(generic, 1)[0]);
    for (const x of connSnippets) pick.appendChild(el("option", { text: x.title, attrs: { value: x.client } }));
    pick.hidden = connSnippets.length === 0;
    if (connSnippets.length) { showSnippet(); return; }
    let cfg = "";
    try { cfg = JSON.stringify(fallback, null, 2); } catch (e) { cfg = ""; }
    $("conn-config").textContent = cfg;
    $("conn-where").textContent = "";
    $("conn-secret").textContent = "";
    $("conn-secret").hidden = true;
    $("conn-secret-where").textContent = "";
  }
  $("conn-create").addEventListener("click", async function () {
    const r = await api("POST", "/api/connections", { label: $("conn-label").value.trim() });
    if (r.status !== 201 || !r.body) { notice(errorText(r, "Creating the connection failed")); return; }
    $("conn-label").value = "";
    showSnippets(r.body.snippets, r.body.client_config);
    $("conn-config-box").hidden = false;
    // What comes next: the new connection sees nothing until a source is
    // shared with it.
    newConn = String(r.body.connection_id || "");
    $("conn-next").hidden = !newConn;
    loadConnections();
  });
  let newConn = "";
  $("conn-share-now").addEventListener("click", function () {
    presetConn = newConn;
    $("conn-next").hidden = true;
    location.hash = "#/sharing";
  });
  $("conn-copy").addEventListener("click", function () {
    const text = $("conn-config").textContent;
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { $("conn-copy").textContent = "Copied"; }, function () {});
  });
  $("conn-config-done").addEventListener("click", function () {
    connSnippets = [];
    if ($("conn-client")) clear($("conn-client"));
    if ($("conn-where")) $("conn-where").textContent = "";
    if ($("conn-secret")) { $("conn-secret").textContent = ""; $("conn-secret").hidden = true; }
    if ($("conn-secret-where")) $("conn-secret-where").textContent = "";
    $("conn-config").textContent = "";
    $("conn-config-box").hidden = true;
    $("conn-copy").textContent = "Copy";
  });

  // ---- sessions ----------------------------------------------------------
  async function loadSessions() {
    await loadLists();
    const r = await api("GET", "/api/sessions");
    if (r.status !== 200 || !Array.isArray(r.body)) return;
    const body = $("session-list");
    clear(body);
    for (const s of r.body) {
      body.appendChild(el("tr", { attrs: { "data-session-id": s.session_id } }, [
        el("td", {}, [el("code", { text: s.session_id })]),
        el("td", {}, [dataSpan(s.label || "(none)", "agent")]),
        el("td", {}, [dataSpan(connLabel(s.connection_id))]),
        el("td", { text: age(s.begun_at) }),
        el("td", {}, grantItems(s)),
        el("td", {}, [confirmClick(el("button", { type: "button", cls: "danger", text: "End" }), "Confirm end", async function () {
          const r = await api("DELETE", "/api/sessions/" + encodeURIComponent(s.session_id));
          status("sessions-status", r.status === 200 ? "Session ended." : errorText(r, "Ending the session failed"), r.status !== 200);
          loadSessions();
        })]),
      ]));
    }
    if (!r.body.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: "No active session.", attrs: { colspan: "6" } })]));
  }

  const GRANT_LABELS = { table: "table", source: "whole source", full_sql: "Full SQL", document: "document" };

  // grantItems lists a session's grants, each with its own Revoke: one
  // revocation takes back that whole scope and the results it released.
  function grantItems(s) {
    const grants = Array.isArray(s.grants) ? s.grants : [];
    if (!grants.length) return [el("span", { cls: "muted", text: "none" })];
    return grants.map(function (g) {
      const what = (GRANT_LABELS[g.scope] || "other") + " on ";
      const target = g.scope === "table" ? visibleText(g.alias) + ": " + tableName(g.schema, g.name) : visibleText(g.alias);
      return el("div", { cls: "grant", attrs: { "data-grant": g.scope + ":" + (g.source_id || g.file_id || "") + ":" + (g.schema || "") + "." + (g.name || "") } }, [
        el("span", { text: what }),
        el("span", { cls: "data-inline", text: target }),
        confirmClick(el("button", { type: "button", cls: "danger small", text: "Revoke" }), "Confirm revoke", async function () {
          const r = await api("POST", "/api/sessions/" + encodeURIComponent(s.session_id) + "/grants/revoke",
            { scope: g.scope, source_id: g.source_id || "", schema: g.schema || "", name: g.name || "", file_id: g.file_id || "" });
          status("sessions-status", r.status === 200 ? "Grant revoked." : errorText(r, "Revoke failed"), r.status !== 200);
          loadSessions();
        }),
      ]);
    });
  }

  confirmClick($("stop-all"), "Confirm: end every session", async function () {
    const r = await api("POST", "/api/stop-all");
    if (r.status === 200 && r.body) status("sessions-status", "Ended " + Number(r.body.ended) + " session(s).");
    else status("sessions-status", errorText(r, "Stop all failed"), true);
    loadSessions();
    pollPending();
  });

  // ---- sources and documents --------------------------------------------
  async function loadSources() {
    await loadLists();
    const body = $("src-list");
    clear(body);
    for (const s of sources) {
      body.appendChild(el("tr", { attrs: { "data-source-id": s.source_id } }, [
        el("td", {}, [dataSpan(s.alias)]),
        el("td", { text: s.kind }),
        el("td", { text: s.read_only ? "yes" : "no" }),
        el("td", {}, [el("code", { text: s.source_id })]),
        healthCell(s),
        el("td", { cls: "actions" }, sourceButtons(s).concat([confirmClick(el("button", { type: "button", cls: "danger", text: "Remove" }), "Confirm remove", async function () {
          const r = await api("DELETE", "/api/sources/" + encodeURIComponent(s.source_id));
          status("src-status", r.status === 200 ? "Removed." : errorText(r, "Removing failed"), r.status !== 200);
          loadSources();
        })])),
      ]));
    }
    if (!sources.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: "No source yet.", attrs: { colspan: "6" } })]));
    loadDocuments();
  }

  // The kind selector shows that kind's accepted forms, with an example,
  // and the location field's placeholder follows it.
  const LOCATION_HINTS = { sqlite: "/absolute/path/to/file.db", postgres: "postgres://user@127.0.0.1:5432/db?sslmode=disable", mysql: "mysql://user@127.0.0.1:3306/db" };
  function showKindForms() {
    const kind = $("src-kind").value;
    for (const p of $("src-forms").querySelectorAll("p[data-kind]")) p.hidden = p.dataset.kind !== kind;
    $("src-location").placeholder = LOCATION_HINTS[kind] || "";
  }
  $("src-kind").addEventListener("change", showKindForms);
  showKindForms();

  // Adding a source tests its connection at once; the result shows on its
  // row (the health cell), where the person looks for it later.
  $("src-add").addEventListener("click", async function () {
    const kind = $("src-kind").value;
    const loc = $("src-location").value.trim();
    const body = { kind: kind, alias: $("src-alias").value.trim(), read_only: $("src-readonly").checked };
    if (kind === "sqlite") body.path = loc; else body.dsn = loc;
    const r = await api("POST", "/api/sources", body);
    if (r.status === 201) {
      $("src-location").value = "";
      $("src-alias").value = "";
      $("src-readonly").checked = true;
      status("src-status", "Added; testing the connection…");
      const id = r.body && typeof r.body.source_id === "string" ? r.body.source_id : "";
      if (id) {
        const t = await api("POST", "/api/sources/" + encodeURIComponent(id) + "/test");
        status("src-status", t.status === 200 && t.body && t.body.ok ? "Added; the connection works." : "Added, but the connection test failed: see its row.", !(t.status === 200 && t.body && t.body.ok));
      }
    } else {
      status("src-status", errorText(r, "Adding the source failed"), true);
    }
    loadSources();
  });

  async function loadDocuments() {
    const r = await api("GET", "/api/documents");
    const unavailable = r.status === 404 || r.status === 405;
    $("doc-unavailable").hidden = !unavailable;
    const body = $("doc-list");
    clear(body);
    if (r.status !== 200 || !r.body || !Array.isArray(r.body.documents)) return;
    for (const d of r.body.documents) {
      body.appendChild(el("tr", { attrs: { "data-file-id": d.file_id } }, [
        el("td", {}, [dataSpan(d.alias)]),
        el("td", { text: d.kind }),
        el("td", { text: String(d.version) }),
        el("td", { text: String(d.bytes) }),
        docStatusCell(d),
        docSharedCell(d),
        el("td", { cls: "actions" }, [
          el("button", { type: "button", text: "Sharing", onclick: function () { editDocSharing(d); } }),
          el("button", { type: "button", text: "Refresh", onclick: async function () {
            const rr = await api("PUT", "/api/documents/" + encodeURIComponent(d.file_id) + "/refresh");
            if (rr.status !== 200) status("doc-status", errorText(rr, "Refreshing failed"), true);
            loadDocuments();
          } }),
          confirmClick(el("button", { type: "button", cls: "danger", text: "Close" }), "Confirm close", async function () {
            const r = await api("DELETE", "/api/documents/" + encodeURIComponent(d.file_id));
            status("doc-status", r.status === 200 ? "Closed." : errorText(r, "Closing failed"), r.status !== 200);
            loadDocuments();
          }),
        ]),
      ]));
    }
    if (!r.body.documents.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: "No open document.", attrs: { colspan: "7" } })]));
  }

  $("doc-open").addEventListener("click", async function () {
    const r = await api("POST", "/api/documents", { path: $("doc-path").value.trim(), alias: $("doc-alias").value.trim() });
    if (r.status === 200 || r.status === 201) {
      $("doc-path").value = "";
      $("doc-alias").value = "";
      status("doc-status", "Opened.");
    } else {
      status("doc-status", errorText(r, "Opening the document failed"), true);
    }
    loadDocuments();
  });

  // ---- source edit, health and document sharing -------------------------
  // The health cell: the last connection test of the source's current
  // configuration, with the engine's static reason when it failed.
  function healthCell(s) {
    const h = s.health;
    if (!h) return el("td", { cls: "muted health", text: "not tested", attrs: { "data-health": "none" } });
    if (h.ok) return el("td", { cls: "health", text: "connected · " + timeOf(h.tested_at), attrs: { "data-health": "ok" } });
    return el("td", { cls: "health status bad", attrs: { "data-health": h.code || "failed" } },
      [document.createTextNode((h.code || "failed") + ": " + visibleText(h.reason || "") + " · " + timeOf(h.tested_at))]);
  }

  function sourceButtons(s) {
    return [
      el("button", { type: "button", text: "Test connection", attrs: { "data-action": "test-source" }, onclick: async function (ev) {
        ev.target.disabled = true;
        status("src-status", "Testing " + s.alias + "…");
        const r = await api("POST", "/api/sources/" + encodeURIComponent(s.source_id) + "/test");
        if (r.status === 200 && r.body) status("src-status", r.body.ok ? "Connection works." : "Connection failed: " + visibleText(r.body.reason || r.body.code || ""), !r.body.ok);
        else status("src-status", errorText(r, "Testing failed"), true);
        loadSources();
      } }),
      el("button", { type: "button", text: "Edit", attrs: { "data-action": "edit-source" }, onclick: function () { editSource(s); } }),
    ];
  }

  let editing = null; // the source being edited
  function editSource(s) {
    editing = s;
    $("src-edit-name").textContent = visibleText(s.alias);
    $("src-edit-alias").value = s.alias;
    $("src-edit-location").value = "";
    $("src-edit-location").placeholder = s.kind === "sqlite" ? "new file path" : "new DSN";
    $("src-edit-password").value = "";
    $("src-edit-password").hidden = s.kind === "sqlite";
    $("src-edit-readonly").checked = !!s.read_only;
    status("src-edit-status", "");
    $("src-edit").hidden = false;
    $("src-edit-alias").focus();
  }

  $("src-edit-cancel").addEventListener("click", function () { editing = null; $("src-edit").hidden = true; });
  $("src-edit").addEventListener("submit", async function (ev) {
    ev.preventDefault();
    if (!editing) return;
    const s = editing;
    const body = {};
    const alias = $("src-edit-alias").value.trim();
    if (alias && alias !== s.alias) body.alias = alias;
    const loc = $("src-edit-location").value.trim();
    if (loc) { if (s.kind === "sqlite") body.path = loc; else body.dsn = loc; }
    const pw = $("src-edit-password").value;
    if (pw && s.kind !== "sqlite") body.password = pw;
    if ($("src-edit-readonly").checked !== !!s.read_only) body.read_only = $("src-edit-readonly").checked;
    if (!Object.keys(body).length) { status("src-edit-status", "Nothing changed.", true); return; }
    const r = await api("PATCH", "/api/sources/" + encodeURIComponent(s.source_id), body);
    if (r.status === 200 && r.body) {
      $("src-edit-location").value = "";
      $("src-edit-password").value = "";
      $("src-edit").hidden = true;
      editing = null;
      status("src-status", r.body.generation !== s.generation
        ? "Saved: a new configuration. Grants and requests on this source were revoked."
        : "Saved: renamed; grants and requests stay.");
    } else {
      status("src-edit-status", errorText(r, "Saving failed"), true);
    }
    loadSources();
  });

  // A document's status: its snapshot, or why it has none (the file is
  // gone, unreadable, too large, past the total). Never a stale snapshot.
  function docStatusCell(d) {
    if (d.available === false) {
      return el("td", { cls: "status bad doc-problem", attrs: { "data-problem": "1" } },
        [document.createTextNode("Unavailable: " + visibleText(d.problem || "no current snapshot"))]);
    }
    return el("td", { cls: "muted", text: d.followed === false ? "snapshot (changes not followed; use Refresh)" : "snapshot, following changes" });
  }

  function docSharedCell(d) {
    const list = Array.isArray(d.shared_with) ? d.shared_with : [];
    if (!list.length) return el("td", { cls: "muted", text: "nobody" });
    return el("td", {}, [dataSpan(list.map(function (id) { return id === "all" ? "All agents" : connLabel(id); }).join(", "))]);
  }

  let sharingDoc = null;
  async function editDocSharing(d) {
    await loadLists();
    sharingDoc = d;
    $("doc-share-name").textContent = visibleText(d.alias);
    const box = $("doc-share-conns");
    clear(box);
    const current = Array.isArray(d.shared_with) ? d.shared_with : [];
    const items = [{ id: "all", label: "All agents" }].concat(connections.map(function (c) { return { id: c.connection_id, label: c.label }; }));
    for (const it of items) {
      const cb = el("input", { type: "checkbox", attrs: { "data-conn": it.id } });
      cb.checked = current.indexOf(it.id) >= 0;
      box.appendChild(el("label", {}, [cb, document.createTextNode(" "), dataSpan(it.label)]));
    }
    status("doc-share-status", "");
    $("doc-share").hidden = false;
  }

  $("doc-share-cancel").addEventListener("click", function () { sharingDoc = null; $("doc-share").hidden = true; });
  $("doc-share").addEventListener("submit", async function (ev) {
    ev.preventDefault();
    if (!sharingDoc) return;
    const ids = [...$("doc-share-conns").querySelectorAll("input[data-conn]")].filter(function (c) { return c.checked; }).map(function (c) { return c.dataset.conn; });
    const r = await api("PUT", "/api/documents/" + encodeURIComponent(sharingDoc.file_id) + "/sharing", { shared_with: ids });
    if (r.status === 200) {
      sharingDoc = null;
      $("doc-share").hidden = true;
      status("doc-status", "Sharing saved.");
    } else {
      status("doc-share-status", errorText(r, "Saving the sharing failed"), true);
    }
    loadDocuments();
  });

  // ---- activity ----------------------------------------------------------
  // An audit trail: the broker's entries (newest first) grouped into one
  // row per request, with how it ended, the events in readable words, the
  // whole statement (wrapped; long ones open on a click), the connection,
  // the source and the date and time. Entries of no request (a refusal,
  // a grant revoked, a source added) are rows of their own; a refusal an
  // agent repeated is one row with its count.
  const EVENT_NAMES = {
    request_created: "asked", request_approved: "allowed by you", request_running: "ran",
    shared_access: "ran under standing access", request_completed: "completed", request_denied: "denied by you",
    request_revoked: "revoked", request_failed: "failed", request_expired: "expired", request_cancelled: "withdrawn by the agent",
    request_outcome_unknown: "outcome unknown", request_result_expired: "result expired", request_completed_result_revoked: "result revoked",
    request_refused: "refused", limit_exceeded: "refused: a limit", grant_revoked: "grant revoked by you",
    session_begun: "session begun", session_ended: "session ended", connection_created: "connection created",
    connection_revoked: "connection revoked", sharing_changed: "sharing changed", source_added: "source added",
    source_removed: "source removed", server_started: "server started", server_stopped: "server stopped",
    console_signed_in: "console signed in", document_opened: "document opened", document_closed: "document closed",
    document_changed: "document changed", document_available: "document available again", document_unavailable: "document unavailable",
    document_sharing_changed: "document sharing changed",
  };
  const SCOPE_WORDS = { once: "once", table: "this table for the session", tables: "these tables for the session", source: "the source for the session", document: "the document for the session", full_sql: "full SQL for the session" };
  // OUTCOMES are the filter's choices: what a row's outcome may be.
  const OUTCOMES = [
    { value: "", label: "any outcome" }, { value: "completed", label: "completed" }, { value: "denied", label: "denied" },
    { value: "refused", label: "refused" }, { value: "revoked", label: "revoked" }, { value: "failed", label: "failed or expired" },
    { value: "waiting", label: "waiting or running" }, { value: "other", label: "other events" },
  ];
  const ACT_PAGE = 20;
  let actRows = [];
  let actPage = 0;
  const actOpen = new Set(); // statements opened whole, by request id

  function eventName(ev) { return EVENT_NAMES[ev] || String(ev || "").replace(/_/g, " "); }

  function dateTime(iso) {
    const t = new Date(iso);
    return isNaN(t) ? "" : t.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }) + " " + t.toLocaleTimeString();
  }

  // outcomeOf names how a request's row ended, from its newest event.
  function outcomeOf(events) {
    for (const a of events) {
      const m = /^request_(.+)$/.exec(a.event);
      if (!m || m[1] === "approved" || m[1] === "created") continue;
      const st = m[1];
      if (st === "running") return { key: "waiting", text: "running", cls: "outcome-wait" };
      if (st === "completed") return { key: "completed", text: "completed", cls: "outcome-ok" };
      if (st === "denied") return { key: "denied", text: "denied", cls: "outcome-bad" };
      if (st === "refused") return { key: "refused", text: "refused", cls: "outcome-bad" };
      if (st === "revoked" || st === "completed_result_revoked") return { key: "revoked", text: st.replace(/_/g, " "), cls: "outcome-bad" };
      if (st === "failed" || st === "expired" || st === "outcome_unknown") return { key: "failed", text: st.replace(/_/g, " "), cls: "outcome-bad" };
      return { key: "other", text: st.replace(/_/g, " "), cls: "outcome-wait" };
    }
    if (events.some(function (a) { return a.event === "shared_access"; })) return { key: "waiting", text: "running", cls: "outcome-wait" };
    return { key: "waiting", text: "waiting", cls: "outcome-wait" };
  }

  // groupActivity turns entries (newest first) into rows (newest first).
  function groupActivity(list) {
    const rows = [];
    const byReq = new Map();
    for (const a of list) {
      if (!a || typeof a !== "object") continue;
      if (a.request_id) {
        let row = byReq.get(a.request_id);
        if (!row) {
          row = { request: a.request_id, events: [], time: a.time, sql: "", connection: "", alias: "", session: a.session_id || "" };
          byReq.set(a.request_id, row);
          rows.push(row);
        }
        row.events.push(a);
        if (!row.sql && a.sql) row.sql = a.sql;
        if (!row.connection && a.connection) row.connection = a.connection;
        if (!row.alias && a.alias) row.alias = a.alias;
        if (a.reason && !row.reason) row.reason = a.reason;
        continue;
      }
      const repeated = Number.isInteger(a.count) && a.count > 1;
      const refusal = a.event === "request_refused" || a.event === "limit_exceeded";
      rows.push({
        events: [a], time: repeated ? a.last_time : a.time, first: repeated ? a.time : "", count: repeated ? a.count : 0,
        sql: a.sql || "", connection: a.connection || "", alias: a.alias || "", reason: a.reason || "", session: a.session_id || "",
        refusal: refusal,
      });
    }
    for (const row of rows) {
      if (row.request) row.outcome = outcomeOf(row.events);
      else if (row.refusal) row.outcome = { key: "refused", text: row.count ? "refused ×" + row.count : "refused", cls: "outcome-bad" };
      else row.outcome = { key: "other", text: eventName(row.events[0].event), cls: "outcome-wait" };
    }
    return rows;
  }

  function fillFilter(sel, values, first) {
    fillSelect(sel, [{ value: "", label: first }].concat(values.map(function (v) { return { value: v, label: v }; })), true);
  }

  async function loadActivity() {
    if (routeRequest) { $("act-search").value = routeRequest; routeRequest = ""; actPage = 0; }
    const r = await api("GET", "/api/activity");
    if (r.status !== 200 || !Array.isArray(r.body)) return;
    actRows = groupActivity(r.body.slice(0, 100));
    const conns = [...new Set(actRows.map(function (x) { return x.connection; }).filter(Boolean))].sort();
    const aliases = [...new Set(actRows.map(function (x) { return x.alias; }).filter(Boolean))].sort();
    fillFilter($("act-conn"), conns, "any connection");
    fillFilter($("act-source"), aliases, "any source");
    if (!$("act-outcome").options.length) fillSelect($("act-outcome"), OUTCOMES, false);
    renderActivity();
  }

  function renderActivity() {
    const conn = $("act-conn").value, alias = $("act-source").value, outcome = $("act-outcome").value;
    const q = $("act-search").value.trim().toLowerCase();
    const shown = actRows.filter(function (x) {
      if (conn && x.connection !== conn) return false;
      if (alias && x.alias !== alias) return false;
      if (outcome && x.outcome.key !== outcome) return false;
      if (q) {
        const hay = [x.sql, x.request, x.session, x.connection, x.alias, x.reason, x.outcome.text].concat(x.events.map(function (a) { return eventName(a.event) + " " + (a.reason || ""); })).join("\n").toLowerCase();
        if (hay.indexOf(q) < 0) return false;
      }
      return true;
    });
    const pages = Math.max(1, Math.ceil(shown.length / ACT_PAGE));
    if (actPage >= pages) actPage = pages - 1;
    const body = $("activity-list");
    clear(body);
    for (const x of shown.slice(actPage * ACT_PAGE, (actPage + 1) * ACT_PAGE)) body.appendChild(activityRow(x));
    if (!shown.length) body.appendChild(el("tr", {}, [el("td", { cls: "empty", text: actRows.length ? "Nothing matches." : "Nothing happened yet.", attrs: { colspan: "5" } })]));
    $("act-count").textContent = shown.length + (shown.length === 1 ? " row" : " rows") + (shown.length !== actRows.length ? " of " + actRows.length : "");
    $("act-page").textContent = "page " + (actPage + 1) + " of " + pages;
    $("act-prev").disabled = actPage === 0;
    $("act-next").disabled = actPage >= pages - 1;
  }

  function activityRow(x) {
    const what = el("td", { cls: "what" });
    // The events, oldest first, in words.
    const trail = x.events.slice().reverse().map(function (a) {
      let t = eventName(a.event);
      if (a.event === "request_approved" && a.status) t += " (" + (SCOPE_WORDS[a.status] || a.status) + ")";
      return t + " " + timeOf(a.time);
    });
    if (x.count) trail.push("×" + x.count + ", first " + dateTime(x.first) + ", last " + dateTime(x.time));
    what.appendChild(el("div", { cls: "trail", text: trail.join(" → ") }));
    if (x.reason) what.appendChild(el("div", {}, [el("span", { cls: "muted", text: "Why: " }), dataSpan(x.reason)]));
    if (x.sql) {
      const pre = fillData(el("pre", { cls: "data stmt-log" }), x.sql);
      what.appendChild(pre);
      if (x.sql.split("\n").length > 3 || x.sql.length > 240) {
        // The periodic re-render keeps a statement the person opened open.
        const key = x.request || x.sql;
        pre.classList.toggle("clamped", !actOpen.has(key));
        const more = el("button", { type: "button", cls: "small fold", text: actOpen.has(key) ? "Show less" : "Show the whole statement" });
        more.addEventListener("click", function () {
          const closed = pre.classList.toggle("clamped");
          if (closed) actOpen.delete(key); else actOpen.add(key);
          more.textContent = closed ? "Show the whole statement" : "Show less";
        });
        what.appendChild(more);
      }
    }
    if (x.request) what.appendChild(el("div", { cls: "muted" }, [el("span", { text: "request " }), el("code", { text: x.request })]));
    const tr = el("tr", { cls: x.refusal ? "refusals" : "", attrs: x.request ? { "data-request": x.request } : {} }, [
      el("td", { text: dateTime(x.time) }),
      el("td", { cls: x.outcome.cls + " outcome-cell", text: x.outcome.text }),
      el("td", {}, [dataSpan(x.connection || "—")]),
      el("td", {}, [dataSpan(x.alias || "—")]),
      what,
    ]);
    return tr;
  }

  for (const id of ["act-conn", "act-source", "act-outcome"]) $(id).addEventListener("change", function () { actPage = 0; renderActivity(); });
  $("act-search").addEventListener("input", function () { actPage = 0; renderActivity(); });
  $("act-prev").addEventListener("click", function () { if (actPage > 0) { actPage--; renderActivity(); } });
  $("act-next").addEventListener("click", function () { actPage++; renderActivity(); });

  // ---- server ------------------------------------------------------------
  let serverStarted = NaN;
  async function loadServer() {
    $("server-console").textContent = location.origin;
    const r = await api("GET", "/api/server");
    if (r.status !== 200 || !r.body) return;
    const running = r.body.running === true;
    $("server-mcp").textContent = r.body.mcp_url;
    $("server-running").textContent = running ? "running" : "stopped";
    $("server-version").textContent = String(r.body.version || "");
    $("server-state").textContent = String(r.body.state_dir || "");
    $("server-log").textContent = String(r.body.log || "");
    $("server-token-file").textContent = r.body.console_token_file ? String(r.body.console_token_file) : "none: dbeast serve printed the token at start";
    serverStarted = Date.parse(r.body.started_at);
    $("server-started").textContent = dateTime(r.body.started_at);
    $("server-uptime").textContent = isNaN(serverStarted) ? "" : duration((Date.now() - serverStarted) / 1000);
    // Only the action that changes the state is offered.
    $("server-start").disabled = running;
    $("server-stop").disabled = $("server-stop").dbeastHeld = !running;
    showSaved(r.body.state_saved);
  }

  // showSaved says whether what is in force is saved. A revocation or
  // narrowing whose save failed is in force all the same; dbeast retries
  // the save, and a restart before it succeeds would bring back the
  // saved settings.
  const UNSAVED = "Not saved yet: a revocation or narrowing is in force, but dbeast could not save it (is the disk full or the keyring locked?). It keeps trying; do not restart dbeast until this goes away.";
  let unsavedShown = false;
  function showSaved(saved) {
    unsavedShown = !saved;
    $("server-saved").textContent = saved ? "saved" : "NOT SAVED YET (in force; dbeast keeps trying to save)";
    $("server-saved").classList.toggle("bad", !saved);
    if (!saved) notice(UNSAVED, "unsaved");
    else clearNotice("unsaved");
  }
  async function checkSaved() {
    const r = await api("GET", "/api/server");
    if (r.status === 200) showSaved(r.body.state_saved);
  }

  async function serverAction(path, done) {
    const r = await api("POST", path);
    status("server-status", r.status === 200 ? done : errorText(r, "Failed"), r.status !== 200);
    loadServer();
  }
  $("server-start").addEventListener("click", function () { serverAction("/api/server/start", "Server running."); });
  confirmClick($("server-stop"), "Confirm: stop and end every session", function () { return serverAction("/api/server/stop", "Server stopped; every session ended."); });

  // ---- start -------------------------------------------------------------
  // The sign-in form takes the console API token typed or pasted by the
  // person (a field, not a URL, so it stays out of the history) and keeps
  // it only if the broker accepts it.
  let signInOffered = false;
  function offerSignIn() {
    // A signed-out page shows only the sign-in: the pages below would
    // show what this tab saw before (or "nothing yet") as if it were now.
    document.body.classList.add("signed-out");
    $("signin").hidden = false;
    if (signInOffered) return;
    signInOffered = true;
    $("signin").addEventListener("submit", async function (ev) {
      ev.preventDefault();
      const typed = $("signin-token").value.trim();
      if (!/^dbk_[A-Za-z0-9_-]{1,200}$/.test(typed)) {
        $("signin-status").textContent = "That is not a console API token.";
        return;
      }
      token = typed;
      const r = await api("GET", "/api/server");
      if (r.status !== 200) {
        token = "";
        $("signin-status").textContent = "dbeast did not accept this token.";
        return;
      }
      $("signin-token").value = "";
      $("signin-status").textContent = "";
      $("signin").hidden = true;
      try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* memory only */ }
      run();
    });
  }

  // A link opened in this tab later signs it in (again).
  window.addEventListener("hashchange", async function () {
    if (!takeCode()) return;
    if (await signIn()) {
      notice("");
      $("signin").hidden = true;
      run();
    } else {
      notice("This sign-in link was already used or is no longer valid. " + SIGN_IN_HELP);
      offerSignIn();
    }
  });

  async function start() {
    if (signInCode && !(await signIn())) {
      notice("This sign-in link was already used or is no longer valid. " + SIGN_IN_HELP);
      if (!token) { offerSignIn(); return; }
    } else if (!token) {
      notice("The console is not signed in. " + SIGN_IN_HELP);
      offerSignIn();
      return;
    }
    run();
  }

  // The periodic re-render also waits while the person is acting on the
  // page: a row replaced between pointing and clicking would take the
  // click away (or give it to whatever took the row's place).
  const QUIET_MS = 3000;
  let lastInput = 0;
  for (const ev of ["pointerdown", "keydown", "wheel"]) {
    document.addEventListener(ev, function () { lastInput = Date.now(); }, { capture: true, passive: true });
  }

  let running = false;
  function run() {
    if (running) { show(); return; }
    running = true;
    window.addEventListener("hashchange", show);
    renderAttention();
    show();
    setInterval(tickAges, 1000);
    let ticks = 0;
    setInterval(function () {
      pollPending();
      ticks++;
      // Every tick while something is not saved (to see the retry
      // succeed), now and then otherwise (another console's change).
      if (unsavedShown || ticks % 5 === 0) checkSaved();
      // A re-render replaces the page's buttons: never while a destructive
      // action waits for its confirming click, or the armed button would
      // vanish under the person's cursor.
      if (ticks % 3 === 0 && (route === "sessions" || route === "activity" || route === "sources" || route === "server") &&
          !document.querySelector(".confirming") && Date.now() - lastInput > QUIET_MS) refreshPage();
    }, POLL_MS);
  }
  start();
})();
