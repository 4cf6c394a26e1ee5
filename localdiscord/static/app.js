// Local mode's page: a Discord channel in the browser, driving the real bot.
// Plain JavaScript, no build step. The server renders messages to HTML (localdiscord/render.py);
// this script keeps the view live (server-sent events), and turns what the person does
// (slash commands with autocomplete, buttons, select menus, modals) into interactions.
"use strict";

const $ = (sel) => document.querySelector(sel);
const S = {
  me: null,
  channel: null,
  state: null,
  source: null,
  command: null, // the command being composed
  seen: JSON.parse(localStorage.getItem("ld-seen") || "{}"),
  dismissed: new Set(),
  problemCount: 0,
  follow: true, // the view sticks to the newest post until the person scrolls up
  lastTop: 0,
};

// ------------------------------------------------------------------------------ server calls
async function post(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return { error: "The local server does not answer: is `make run` still running?" };
  }
  try {
    return await response.json();
  } catch (err) {
    return { error: `The local server answered ${response.status}.` };
  }
}

function act(body) {
  return post("/page/act", { user: S.me, channel: S.channel, ...body });
}

// ------------------------------------------------------------------------------ live view
function connect() {
  if (S.source) S.source.close();
  const q = new URLSearchParams();
  if (S.me) q.set("user", S.me);
  if (S.channel) q.set("channel", S.channel);
  const source = new EventSource(`/page/events?${q}`);
  S.source = source;
  source.onmessage = (event) => {
    if (S.source === source) apply(JSON.parse(event.data));
  };
  source.onerror = () => {
    if (S.source === source) setBotStatus(false, "the local server does not answer");
  };
}

function apply(update) {
  const log = $("#messages");
  if (update.state) {
    S.state = update.state;
    S.me = update.state.me;
    localStorage.setItem("ld-me", S.me);
    renderState();
  }
  if (update.reset) {
    S.channel = update.channel;
    localStorage.setItem("ld-channel", S.channel);
    log.replaceChildren();
    renderHeader();
    S.follow = true;
  }
  const before = log.lastElementChild?.dataset.id;
  for (const item of update.upserts || []) upsert(item.id, item.html);
  for (const id of update.removes || []) document.getElementById(`m${id}`)?.remove();
  if (update.upserts?.length || update.removes?.length || update.reset) {
    formatTimes(log);
    renderEmpty();
    if (S.follow) follow();
    else if (log.lastElementChild?.dataset.id !== before) $("#jump").hidden = false;
  }
  markSeen();
}

// ------------------------------------------------------------------------------ following
// The view follows new posts while it is at the bottom, whatever changes the space: a
// command form opening (the message area shrinks), pictures loading (a post grows), a post
// edited. Only the person scrolling up stops it; scrolling back down, or sending, resumes.
function atBottom(log) {
  return log.scrollHeight - log.scrollTop - log.clientHeight < 40;
}

function follow() {
  const log = $("#messages");
  S.follow = true;
  log.scrollTop = log.scrollHeight;
  S.lastTop = log.scrollTop;
  $("#jump").hidden = true;
}

const resized = new ResizeObserver(() => {
  if (S.follow) follow();
});

function wireFollowing() {
  const log = $("#messages");
  log.addEventListener(
    "scroll",
    () => {
      if (atBottom(log)) {
        S.follow = true;
        $("#jump").hidden = true;
      } else if (log.scrollTop < S.lastTop) S.follow = false; // the person scrolled up
      S.lastTop = log.scrollTop;
    },
    { passive: true },
  );
  // A picture that loads makes its post taller (load events do not bubble: capture).
  log.addEventListener("load", () => S.follow && follow(), true);
  resized.observe(log);
  $("#jump").addEventListener("click", () => {
    follow();
    $("#composer-input").focus();
  });
}

// ------------------------------------------------------------------------------ empty channel
// Discord opens an empty channel with a welcome and its topic; the topic of local mode's
// #lobby says what to type first. `/command` in it opens that command.
function renderEmpty() {
  const log = $("#messages");
  const c = currentChannel();
  let welcome = $("#welcome");
  const empty = !log.querySelector("article:not([hidden])");
  if (!c || !empty || c.kind === "dm") {
    welcome?.remove();
    return;
  }
  if (!welcome) {
    welcome = document.createElement("section");
    welcome.id = "welcome";
    welcome.setAttribute("aria-label", "About this channel");
    log.before(welcome);
  }
  const title = document.createElement("h2");
  title.textContent = c.kind === "thread" ? c.name : `Welcome to #${c.name}!`;
  const start = document.createElement("p");
  start.textContent =
    c.kind === "thread" ? "This is the start of the thread." : `This is the start of the #${c.name} channel.`;
  welcome.replaceChildren(title, start);
  if (c.topic) {
    const topic = document.createElement("p");
    topic.className = "topic";
    for (const [i, part] of c.topic.split(/`([^`]+)`/).entries()) {
      if (i % 2 === 0) {
        topic.append(document.createTextNode(part));
        continue;
      }
      const command = part.startsWith("/") && findCommand(part.slice(1).split(" ")[0]);
      const code = document.createElement(command ? "button" : "code");
      code.textContent = part;
      if (command) {
        code.type = "button";
        code.className = "command-link";
        code.addEventListener("click", () => openCommand(command));
      }
      topic.append(code);
    }
    welcome.append(topic);
  }
}

function findCommand(name) {
  return S.state?.commands.find((c) => c.name === name);
}

function upsert(id, html) {
  const tpl = document.createElement("template");
  tpl.innerHTML = html.trim();
  const node = tpl.content.firstElementChild;
  if (S.dismissed.has(id)) node.hidden = true;
  const old = document.getElementById(`m${id}`);
  if (old) {
    const focused = old.contains(document.activeElement) ? document.activeElement : null;
    const key = focused?.dataset.customId;
    resized.unobserve(old);
    old.replaceWith(node);
    resized.observe(node);
    if (key) node.querySelector(`[data-custom-id="${CSS.escape(key)}"]`)?.focus();
    return;
  }
  const log = $("#messages");
  const big = BigInt(id);
  let after = log.lastElementChild;
  while (after && BigInt(after.dataset.id) > big) after = after.previousElementSibling;
  if (after) after.after(node);
  else log.prepend(node);
  resized.observe(node);
}

// ------------------------------------------------------------------------------ sidebar, header
function renderState() {
  const st = S.state;
  document.title = `${st.title} · ${st.guild.name}`;
  $("#guild-name").textContent = st.guild.name;
  const users = $("#user-select");
  users.replaceChildren(
    ...st.users.map((u) => new Option(u.name, u.id, false, u.id === st.me)),
  );
  renderRoles();
  const list = $("#channels");
  list.replaceChildren();
  for (const c of st.channels) {
    const li = document.createElement("li");
    li.className = `channel ${c.kind}${c.archived ? " archived" : ""}`;
    const a = document.createElement("a");
    a.href = `#c${c.id}`;
    a.dataset.channel = c.id;
    const seen = S.seen[`${st.me}:${c.id}`] || "0";
    const unread = c.last && c.id !== S.channel && BigInt(c.last) > BigInt(seen);
    if (unread) li.classList.add("unread");
    if (c.id === S.channel) a.setAttribute("aria-current", "page");
    const icon = c.kind === "thread" ? "↳" : c.kind === "dm" ? "@" : "#";
    a.innerHTML = `<span class="icon" aria-hidden="true">${icon}</span>`;
    a.append(document.createTextNode(c.name));
    if (unread) {
      const dot = document.createElement("span");
      dot.className = "dot";
      dot.textContent = " (new)";
      a.append(dot);
    }
    li.append(a);
    list.append(li);
  }
  setBotStatus(st.bot.online);
  renderHeader();
  renderProblems();
  renderEmpty();
  if (S.command && !st.commands.find((c) => c.name === S.command.name)) closeCommand();
}

// The roles of the person you are: the server's owner may do everything (/config, /mod,
// /tournament create); anyone else gets what their roles give, changed here at once.
function renderRoles() {
  const st = S.state;
  const me = st.users.find((u) => u.id === st.me);
  const box = $("#role-list");
  if (!me) return box.replaceChildren();
  if (me.owner) {
    const note = document.createElement("p");
    note.className = "owner-note";
    note.textContent = `${me.name} owns this server: every command, server settings included.`;
    return box.replaceChildren(note);
  }
  box.replaceChildren(
    ...st.roles.map((role) => {
      const label = document.createElement("label");
      const check = document.createElement("input");
      check.type = "checkbox";
      check.value = role.id;
      check.checked = me.roles.includes(role.id);
      check.addEventListener("change", async () => {
        const roles = [...box.querySelectorAll("input:checked")].map((c) => c.value);
        const result = await post("/page/roles", { user: S.me, roles });
        if (result.error) showComposerError(result.error);
      });
      label.append(check, document.createTextNode(` ${role.name}`));
      return label;
    }),
  );
  if (!st.roles.length) box.textContent = "none";
}

function currentChannel() {
  return S.state?.channels.find((c) => c.id === S.channel);
}

function renderHeader() {
  const c = currentChannel();
  if (!c) return;
  const prefix = c.kind === "text" ? "#" : "";
  $("#channel-title").textContent = prefix + c.name;
  $("#composer-input").placeholder = `Message ${prefix}${c.name}, or type / for commands`;
  for (const a of document.querySelectorAll("#channels a")) {
    if (a.dataset.channel === S.channel) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function setBotStatus(online, why) {
  const el = $("#bot-status");
  const name = S.state?.bot.name || "The bot";
  el.className = online ? "online" : "offline";
  el.textContent = online ? `● ${name} is online` : `● ${why || `${name} is offline`}`;
}

function renderProblems() {
  const problems = S.state.problems;
  const toggle = $("#problems-toggle");
  const panel = $("#problems");
  toggle.hidden = problems.length === 0;
  toggle.textContent = `⚠ ${problems.length} problem${problems.length === 1 ? "" : "s"}`;
  if (problems.length > S.problemCount) {
    panel.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
  }
  S.problemCount = problems.length;
  if (!problems.length) panel.hidden = true;
  const list = $("#problem-list");
  list.replaceChildren(
    ...problems.map((p) => {
      const li = document.createElement("li");
      li.className = `problem ${p.kind}`;
      const what =
        p.kind === "bot-error"
          ? "The bot logged an error"
          : p.rejected
            ? "Discord would refuse this"
            : "Discord would accept this, but it is surely a bug";
      const head = document.createElement("strong");
      head.textContent = `${what}: ${p.code}`;
      const body = document.createElement("pre");
      body.textContent = p.message + (p.where ? `\n${p.where}` : "");
      li.append(head, body);
      return li;
    }),
  );
}

function markSeen() {
  const c = currentChannel();
  if (!c || !c.last) return;
  S.seen[`${S.me}:${c.id}`] = c.last;
  localStorage.setItem("ld-seen", JSON.stringify(S.seen));
  const li = document.querySelector(`#channels a[data-channel="${c.id}"]`)?.parentElement;
  if (li?.classList.contains("unread")) {
    li.classList.remove("unread");
    li.querySelector(".dot")?.remove();
  }
}

function openChannel(id) {
  if (!id || id === S.channel) return;
  S.channel = id;
  closeCommand();
  connect();
}

// ------------------------------------------------------------------------------ times
const timeFormats = {
  t: { timeStyle: "short" },
  T: { timeStyle: "medium" },
  d: { dateStyle: "short" },
  D: { dateStyle: "long" },
  f: { dateStyle: "long", timeStyle: "short" },
  F: { dateStyle: "full", timeStyle: "short" },
};
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

function formatTimes(root) {
  for (const el of root.querySelectorAll("time.ts")) {
    const when = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) continue;
    const style = el.dataset.style;
    el.title = when.toLocaleString(undefined, timeFormats.F);
    if (style === "R") el.textContent = relativeText(when);
    else if (style === "m") el.textContent = messageTime(when);
    else el.textContent = when.toLocaleString(undefined, timeFormats[style] || timeFormats.f);
  }
}

function relativeText(when) {
  const seconds = (when.getTime() - Date.now()) / 1000;
  const units = [
    ["year", 31536000],
    ["month", 2592000],
    ["day", 86400],
    ["hour", 3600],
    ["minute", 60],
    ["second", 1],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size || unit === "second") {
      return relative.format(Math.round(seconds / size), unit);
    }
  }
  return "";
}

function messageTime(when) {
  const today = new Date();
  const time = when.toLocaleTimeString(undefined, { timeStyle: "short" });
  if (when.toDateString() === today.toDateString()) return `Today at ${time}`;
  return `${when.toLocaleDateString(undefined, { dateStyle: "medium" })} ${time}`;
}

// ------------------------------------------------------------------------------ messages: actions
function failNotice(article, text) {
  if (!article) return;
  article.querySelector(".interaction-failed")?.remove();
  const note = document.createElement("div");
  note.className = "interaction-failed";
  note.setAttribute("role", "alert");
  note.textContent = text;
  article.append(note);
}

async function interact(body, control) {
  const article = control.closest("article");
  control.setAttribute("aria-busy", "true");
  control.disabled = true;
  const result = await act(body);
  control.removeAttribute("aria-busy");
  if (control.isConnected) control.disabled = false;
  if (result.error) failNotice(article, result.error);
  else if (result.failed) failNotice(article, "This interaction failed (the bot did not answer in 3 seconds).");
  else if (result.modal) openModal(result.modal, result.interaction);
}

function wireMessages() {
  const log = $("#messages");
  log.addEventListener("click", (event) => {
    const channelLink = event.target.closest("[data-channel]");
    if (channelLink) {
      event.preventDefault();
      openChannel(channelLink.dataset.channel);
      return;
    }
    const button = event.target.closest("button[data-action='click']");
    if (button) {
      interact(
        { kind: "click", message: button.dataset.message, custom_id: button.dataset.customId },
        button,
      );
      return;
    }
    const multi = event.target.closest("button[data-action='select-multi']");
    if (multi) {
      const box = multi.closest("fieldset");
      const values = [...box.querySelectorAll("input:checked")].map((i) => i.value);
      const lo = Number(box.dataset.min);
      const hi = Number(box.dataset.max);
      if (values.length < lo || values.length > hi) {
        failNotice(box.closest("article"), `Choose between ${lo} and ${hi}.`);
        return;
      }
      interact(
        { kind: "select", message: box.dataset.message, custom_id: box.dataset.customId, values },
        multi,
      );
      return;
    }
    const dismiss = event.target.closest("[data-dismiss]");
    if (dismiss) {
      const article = dismiss.closest("article");
      S.dismissed.add(article.dataset.id);
      article.hidden = true;
      $("#composer-input").focus();
    }
    const spoiler = event.target.closest(".spoiler");
    if (spoiler) spoiler.classList.add("shown");
  });
  log.addEventListener("change", (event) => {
    const select = event.target.closest("select[data-action='select']");
    if (select && select.value) {
      interact(
        {
          kind: "select",
          message: select.dataset.message,
          custom_id: select.dataset.customId,
          values: [select.value],
        },
        select,
      );
    }
  });
  log.addEventListener("keydown", (event) => {
    const spoiler = event.target.closest(".spoiler");
    if (spoiler && (event.key === "Enter" || event.key === " ")) spoiler.classList.add("shown");
  });
}

// ------------------------------------------------------------------------------ modals
function openModal(modal, interaction) {
  const dialog = $("#modal");
  $("#modal-title").textContent = modal.title || "";
  const fields = $("#modal-fields");
  fields.replaceChildren();
  const inputs = [];
  const walk = (items, label) => {
    for (const c of items || []) {
      if (c.type === 1) walk(c.components, null);
      else if (c.type === 18) walk([c.component], c);
      else if (c.type === 4) inputs.push({ input: c, label: label?.label || c.label || c.custom_id, hint: label?.description || "" });
    }
  };
  walk(modal.components, null);
  for (const [i, { input, label, hint }] of inputs.entries()) {
    const id = `modal-field-${i}`;
    const wrap = document.createElement("div");
    wrap.className = "field";
    const lab = document.createElement("label");
    lab.htmlFor = id;
    lab.textContent = label + (input.required === false ? "" : " *");
    const field = document.createElement(input.style === 2 ? "textarea" : "input");
    field.id = id;
    field.dataset.customId = input.custom_id;
    field.value = input.value || "";
    if (input.placeholder) field.placeholder = input.placeholder;
    if (input.max_length) field.maxLength = input.max_length;
    if (input.min_length) field.minLength = input.min_length;
    field.required = input.required !== false;
    wrap.append(lab, field);
    if (hint) {
      const small = document.createElement("small");
      small.textContent = hint;
      wrap.append(small);
    }
    fields.append(wrap);
  }
  dialog.dataset.interaction = interaction;
  dialog.showModal();
  fields.querySelector("input, textarea")?.focus();
}

function wireModal() {
  const dialog = $("#modal");
  $("#modal-cancel").addEventListener("click", () => dialog.close());
  $("#modal-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {};
    for (const field of dialog.querySelectorAll("[data-custom-id]")) {
      if (!field.reportValidity()) return;
      values[field.dataset.customId] = field.value;
    }
    const result = await act({ kind: "modal", interaction: dialog.dataset.interaction, values });
    dialog.close();
    if (result.error || result.failed) showComposerError(result.error || "This interaction failed.");
  });
}

// ------------------------------------------------------------------------------ composer
function showComposerError(text) {
  $("#composer-error").textContent = text || "";
}

function popupOptions(popup, items, onPick, input) {
  popup.replaceChildren();
  popup.hidden = items.length === 0;
  input.setAttribute("aria-expanded", items.length ? "true" : "false");
  items.forEach((item, i) => {
    const li = document.createElement("li");
    li.id = `${popup.id}-${i}`;
    li.setAttribute("role", "option");
    li.className = "option";
    const name = document.createElement("span");
    name.className = "option-name";
    name.textContent = item.label;
    li.append(name);
    if (item.hint) {
      const hint = document.createElement("span");
      hint.className = "option-hint";
      hint.textContent = item.hint;
      li.append(hint);
    }
    li.addEventListener("mousedown", (event) => {
      event.preventDefault();
      onPick(item);
    });
    popup.append(li);
  });
  popup.items = items;
  popup.onPick = onPick;
  fitPopup(popup);
  setActive(popup, input, items.length ? 0 : -1);
}

// Suggestions open above the whole composer, over the messages, never over the command's
// own form (its Cancel stays in reach): as tall as the space above the composer allows.
function fitPopup(popup) {
  if (popup.hidden) return;
  const above = $("#composer").getBoundingClientRect().top - $("#main").getBoundingClientRect().top;
  popup.style.maxHeight = `${Math.max(96, Math.min(320, above - 12))}px`;
}

function setActive(popup, input, index) {
  popup.active = index;
  for (const [i, li] of [...popup.children].entries()) {
    li.setAttribute("aria-selected", i === index ? "true" : "false");
    if (i === index) li.scrollIntoView({ block: "nearest" });
  }
  if (index >= 0) input.setAttribute("aria-activedescendant", `${popup.id}-${index}`);
  else input.removeAttribute("aria-activedescendant");
}

function closePopup(popup, input) {
  popup.hidden = true;
  popup.replaceChildren();
  popup.items = [];
  delete popup.dataset.for;
  input.setAttribute("aria-expanded", "false");
  input.removeAttribute("aria-activedescendant");
}

// Arrow keys, Enter and Tab for an open popup; true if the key was used.
function popupKey(event, popup, input) {
  if (popup.hidden || !popup.items?.length) return false;
  const n = popup.items.length;
  if (event.key === "ArrowDown") setActive(popup, input, (popup.active + 1) % n);
  else if (event.key === "ArrowUp") setActive(popup, input, (popup.active - 1 + n) % n);
  else if ((event.key === "Enter" || event.key === "Tab") && popup.active >= 0) {
    popup.onPick(popup.items[popup.active]);
  } else if (event.key === "Escape") closePopup(popup, input);
  else return false;
  event.preventDefault();
  return true;
}

function commandMatches(text) {
  const typed = text.slice(1).trim().toLowerCase();
  const commands = S.state?.commands || [];
  const starts = commands.filter((c) => c.name.startsWith(typed));
  const inside = commands.filter((c) => !c.name.startsWith(typed) && c.name.includes(typed));
  return [...starts, ...inside]; // every command: the list scrolls (Discord's is not cut)
}

function wireComposer() {
  const input = $("#composer-input");
  const popup = $("#command-popup");
  const pick = (item) => {
    closePopup(popup, input);
    openCommand(item.command);
  };
  input.addEventListener("input", () => {
    showComposerError("");
    if (input.value.startsWith("/")) {
      const found = commandMatches(input.value);
      popupOptions(
        popup,
        found.map((c) => ({ label: `/${c.name}`, hint: c.description, command: c })),
        pick,
        input,
      );
      const exact = found.find((c) => input.value === `/${c.name} `);
      if (exact) pick({ command: exact });
    } else closePopup(popup, input);
  });
  input.addEventListener("keydown", (event) => {
    if (popupKey(event, popup, input)) return;
    if (event.key === "Escape") input.value = "";
  });
  input.addEventListener("blur", () => closePopup(popup, input));
  $("#composer").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (S.command) return sendCommand();
    const text = input.value;
    if (!text.trim()) return;
    if (text.startsWith("/")) {
      const found = commandMatches(text);
      if (found.length) openCommand(found[0]);
      else showComposerError(`No command ${text.split(" ")[0]}.`);
      return;
    }
    follow();
    const result = await act({ kind: "message", content: text });
    if (result.error) showComposerError(result.error);
    else input.value = "";
  });
  $("#command-cancel").addEventListener("click", closeCommand);
  $("#command-form").addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !event.defaultPrevented) closeCommand();
  });
}

function openCommand(command) {
  S.command = command;
  const input = $("#composer-input");
  input.value = "";
  input.closest(".composer-row").classList.add("with-command");
  $("#command-form").hidden = false;
  $("#command-name").textContent = `/${command.name}`;
  $("#command-desc").textContent = command.description;
  const box = $("#command-options");
  box.replaceChildren();
  const ordered = [...command.options.filter((o) => o.required), ...command.options.filter((o) => !o.required)];
  for (const option of ordered) box.append(optionField(command, option));
  $("#send").textContent = `Send /${command.name}`;
  const first = box.querySelector("input, select");
  if (first) first.focus();
  else $("#send").focus();
}

function closeCommand() {
  S.command = null;
  $("#command-form").hidden = true;
  $("#command-options").replaceChildren();
  $("#send").textContent = "Send";
  const input = $("#composer-input");
  input.closest(".composer-row").classList.remove("with-command");
  input.focus();
}

function optionField(command, option) {
  const id = `opt-${option.name}`;
  const wrap = document.createElement("div");
  wrap.className = `opt opt-${option.type}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = option.name;
  if (option.required) {
    const star = document.createElement("span");
    star.className = "required";
    star.textContent = " *";
    star.title = "required";
    label.append(star);
  }
  wrap.append(label);
  let field;
  const people = () => [
    ...(S.state?.users || []),
    { id: S.state?.bot.id, name: S.state?.bot.name },
  ];
  if (option.choices || option.type === "boolean" || ["user", "channel", "role", "mentionable"].includes(option.type)) {
    field = document.createElement("select");
    field.append(new Option(option.required ? "choose…" : "(not set)", ""));
    let choices = option.choices || [];
    if (option.type === "boolean") choices = [{ name: "True", value: "true" }, { name: "False", value: "false" }];
    if (option.type === "user" || option.type === "mentionable") choices = people().map((u) => ({ name: u.name, value: u.id }));
    if (option.type === "channel") {
      choices = (S.state?.channels || []).filter((c) => c.kind !== "dm").map((c) => ({ name: c.name, value: c.id }));
    }
    for (const c of choices) field.append(new Option(c.name, String(c.value)));
  } else if (option.type === "attachment") {
    field = document.createElement("input");
    field.type = "file";
  } else {
    field = document.createElement("input");
    field.type = "text";
    if (option.type === "integer" || option.type === "number") field.inputMode = "decimal";
    if (option.max_length) field.maxLength = option.max_length;
  }
  field.id = id;
  field.dataset.option = option.name;
  field.dataset.type = option.type;
  const hint = document.createElement("small");
  hint.id = `${id}-hint`;
  hint.textContent = option.description;
  field.setAttribute("aria-describedby", hint.id);
  if (option.required) field.setAttribute("aria-required", "true");
  if (option.autocomplete) {
    const combo = document.createElement("div");
    combo.className = "combo";
    const list = document.createElement("ul");
    list.id = `${id}-choices`;
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", `Suggestions for ${option.name}`);
    list.hidden = true;
    field.setAttribute("role", "combobox");
    field.setAttribute("aria-autocomplete", "list");
    field.setAttribute("aria-expanded", "false");
    field.setAttribute("aria-controls", list.id);
    combo.append(list, field);
    wrap.append(combo);
    wireAutocomplete(command, option, field, list);
  } else {
    wrap.append(field);
    field.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && field.tagName === "INPUT") {
        event.preventDefault();
        sendCommand();
      }
    });
  }
  wrap.append(hint);
  return wrap;
}

function wireAutocomplete(command, option, field, list) {
  let counter = 0;
  let timer = null;
  const pick = (item) => {
    counter++; // answers still on their way are for what was typed before
    clearTimeout(timer);
    field.value = item.label;
    field.dataset.value = item.value;
    field.dataset.shown = item.label;
    closePopup(list, field);
  };
  const ask = async () => {
    const mine = ++counter;
    const typed = field.value;
    const result = await act({
      kind: "autocomplete",
      command: command.name,
      focused: option.name,
      value: typed,
      options: collect(true),
    });
    if (mine !== counter || field.value !== typed || document.activeElement !== field) return;
    if (result.error) {
      showComposerError(result.error);
      return;
    }
    // A suggestion the person moved to with the arrows stays chosen when the list is
    // refreshed; otherwise the best match (the first) is, as the list ranks it.
    const activeLabel = list.active > 0 ? list.items?.[list.active]?.label : undefined;
    popupOptions(
      list,
      result.choices.map((c) => ({ label: c.name, value: String(c.value) })),
      pick,
      field,
    );
    list.dataset.for = typed; // which text these suggestions answer
    const keep = list.items.findIndex((item) => item.label === activeLabel);
    if (keep > 0) setActive(list, field, keep);
  };
  field.addEventListener("input", () => {
    delete field.dataset.value;
    showComposerError("");
    clearTimeout(timer);
    timer = setTimeout(ask, 120);
  });
  field.addEventListener("focus", () => {
    if (!field.dataset.value) ask();
  });
  field.addEventListener("blur", () => {
    counter++;
    closePopup(list, field);
  });
  field.addEventListener("keydown", (event) => {
    if (popupKey(event, list, field)) return;
    if (event.key === "Enter") {
      event.preventDefault();
      sendCommand();
    }
  });
}

function collect(partial) {
  const values = {};
  for (const field of document.querySelectorAll("#command-options [data-option]")) {
    if (field.type === "file") continue;
    let value = field.value;
    if (field.dataset.value !== undefined && field.dataset.shown === field.value) value = field.dataset.value;
    if (value !== "" || partial) values[field.dataset.option] = value;
  }
  return values;
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

async function sendCommand() {
  const command = S.command;
  if (!command) return;
  const options = collect(false);
  for (const field of document.querySelectorAll("#command-options input[type=file]")) {
    const file = field.files?.[0];
    if (file) options[field.dataset.option] = { filename: file.name, data: await readFile(file) };
  }
  const missing = command.options.filter((o) => o.required && !(o.name in options));
  if (missing.length) {
    showComposerError(`/${command.name} needs ${missing.map((o) => o.name).join(", ")}.`);
    document.getElementById(`opt-${missing[0].name}`)?.focus();
    return;
  }
  const send = $("#send");
  send.disabled = true;
  send.setAttribute("aria-busy", "true");
  follow(); // as on Discord: what you send, and its answer, are shown
  const result = await act({ kind: "slash", command: command.name, options });
  send.disabled = false;
  send.removeAttribute("aria-busy");
  if (result.error) {
    showComposerError(result.error);
    return;
  }
  if (result.failed) showComposerError(`/${command.name}: this interaction failed (the bot did not answer in 3 seconds).`);
  closeCommand();
  if (result.modal) openModal(result.modal, result.interaction);
}

// ------------------------------------------------------------------------------ sidebar
// On a phone the channels and "You are" fold away behind a button, as Discord's do.
function wireSidebar() {
  const toggle = $("#sidebar-toggle");
  const set = (open) => {
    $("#app").classList.toggle("sidebar-open", open);
    toggle.setAttribute("aria-expanded", String(open));
  };
  toggle.addEventListener("click", () => {
    const open = !$("#app").classList.contains("sidebar-open");
    set(open);
    if (open) $("#channels a[aria-current]")?.focus();
  });
  $("#sidebar").addEventListener("click", (event) => {
    if (event.target.closest("#channels a")) set(false);
  });
  document.addEventListener("click", (event) => {
    const open = $("#app").classList.contains("sidebar-open");
    if (open && !event.target.closest("#sidebar, #sidebar-toggle")) set(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && $("#app").classList.contains("sidebar-open")) {
      set(false);
      toggle.focus();
    }
  });
  $("#user-select").addEventListener("change", () => set(false));
}

// ------------------------------------------------------------------------------ users
function wireUsers() {
  $("#user-select").addEventListener("change", (event) => switchUser(event.target.value));
  $("#new-user-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#new-user");
    const result = await post("/page/users", { name: input.value });
    if (result.error) {
      showComposerError(result.error);
      return;
    }
    input.value = "";
    switchUser(result.id);
  });
  $("#problems-toggle").addEventListener("click", () => {
    const panel = $("#problems");
    panel.hidden = !panel.hidden;
    $("#problems-toggle").setAttribute("aria-expanded", String(!panel.hidden));
  });
  $("#channels").addEventListener("click", (event) => {
    const link = event.target.closest("[data-channel]");
    if (link) {
      event.preventDefault();
      openChannel(link.dataset.channel);
    }
  });
}

function switchUser(id) {
  if (!id || id === S.me) return;
  S.me = id;
  localStorage.setItem("ld-me", id);
  if (currentChannel()?.kind === "dm") S.channel = null;
  closeCommand();
  showComposerError("");
  connect();
}

// ------------------------------------------------------------------------------ start
function start() {
  const params = new URLSearchParams(location.search);
  S.me = params.get("user") || localStorage.getItem("ld-me");
  S.channel = location.hash.startsWith("#c") ? location.hash.slice(2) : localStorage.getItem("ld-channel");
  wireMessages();
  wireFollowing();
  wireSidebar();
  wireComposer();
  wireUsers();
  wireModal();
  connect();
  setInterval(() => formatTimes(document), 30000);
}

start();
