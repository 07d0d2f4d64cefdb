// bbo-arena's web leaderboard (docs/web.md): signs in with a token kept in sessionStorage,
// sends it as `Authorization: Bearer` to the JSON API under /api/, and polls every few seconds.
// Every text from the server goes into the page through textContent, never as markup: names are
// the participants' own.
'use strict';

const TOKEN_KEY = 'bbo-arena-token';
const POLL_MS = 5000;

const state = {
  token: sessionStorage.getItem(TOKEN_KEY) || '',
  me: null,
  phases: null,         // the last /api/phases answer
  phasesAt: 0,          // Date.now() when it arrived (the countdown runs from there)
  phase: '',            // the phase shown ("" = follow the current one)
  board: 'main',
  polling: false,
  again: false,
  timer: null,
  openLogs: new Map(),  // submission id -> the content of its open log row
};

const $ = (id) => document.getElementById(id);

// An element with text children (strings) or elements; attributes set as properties or data-*.
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// A POST of a JSON object to an action of the API (the token in the header, never a cookie).
async function post(path, body) {
  const headers = {'Content-Type': 'application/json'};
  if (state.token) headers.Authorization = 'Bearer ' + state.token;
  const res = await fetch(path, {method: 'POST', headers, body: JSON.stringify(body),
    cache: 'no-store', credentials: 'omit'});
  let answer = null;
  try {
    answer = await res.json();
  } catch (e) {
    answer = {error: 'the server sent no JSON (HTTP ' + res.status + ')'};
  }
  if (res.status === 401 && state.token) signOut('Your token was refused: ' + answer.error);
  return {ok: res.ok, status: res.status, body: answer};
}

// Runs an action, says what happened in #action-message, and refreshes the page.
async function act(path, body, done) {
  const r = await post(path, body);
  $('action-message').textContent = r.ok ? done(r.body) : 'Refused: ' + (r.body.error || ('HTTP ' + r.status));
  $('action-message').className = r.ok ? 'note' : 'error';
  refresh();
  if (state.me && state.me.role === 'organizer') refreshOrganizer();
  return r;
}

// Asks for a reason (recorded and shown to the teams concerned); null when cancelled.
function askReason(what) {
  const reason = window.prompt('Why? (' + what + '; recorded with your name and shown to the teams concerned)');
  return reason === null || reason.trim() === '' ? null : reason.trim();
}

async function api(path) {
  const headers = {};
  if (state.token) headers.Authorization = 'Bearer ' + state.token;
  const res = await fetch(path, {headers, cache: 'no-store', credentials: 'omit'});
  let body = null;
  try {
    body = await res.json();
  } catch (e) {
    body = {error: 'the server sent no JSON (HTTP ' + res.status + ')'};
  }
  if (res.status === 401 && state.token) signOut('Your token was refused: ' + body.error);
  return {ok: res.ok, status: res.status, body};
}

function fmtScore(v) {
  return typeof v === 'number' ? v.toFixed(2) : '—';
}

function fmtUtc(seconds) {
  if (seconds === null || seconds === undefined) return 'open';
  return new Date(seconds * 1000).toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');
}

function fmtDuration(seconds) {
  let s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  if (d > 0) return `${d} d ${h} h ${m} min`;
  if (h > 0) return `${h} h ${m} min`;
  return `${m} min ${s} s`;
}

// --- signing in and out

// Signed out: the public page (the competition, its calendar and public boards) under the
// sign-in form; nothing that needs a token is asked for.
function showSignIn(message) {
  $('who').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message || '';
  $('app').hidden = false;
  for (const id of ['submissions', 'queue-section', 'organizer', 'organizer-actions', 'upload',
    'submission-page']) $(id).hidden = true;
  $('action-message').textContent = '';
  $('updated').textContent = '';
  refresh();
  if (!state.timer) state.timer = setInterval(refresh, POLL_MS);
}

function signOut(message) {
  state.token = '';
  state.me = null;
  state.openLogs.clear();
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn(message);
}

async function signIn(token) {
  state.token = token;
  const r = await api('/api/me');
  if (!r.ok) {
    signOut(r.body.error || ('HTTP ' + r.status));
    return;
  }
  if (r.body.role !== 'team' && r.body.role !== 'organizer') {
    signOut('This is a ' + r.body.role + ' token: sign in with your team\'s token or an organizer\'s.');
    return;
  }
  state.me = r.body;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('sign-in').hidden = true;
  $('register').hidden = true;
  $('app').hidden = false;
  $('who').hidden = false;
  $('upload').hidden = r.body.role !== 'team';
  $('submissions').hidden = false;
  $('who-name').textContent = r.body.role === 'team' ? 'team ' + r.body.name : r.body.role;
  const organizer = r.body.role === 'organizer';
  // The queue and the workers are the organizers' (the API refuses them to others).
  $('queue-section').hidden = !organizer;
  $('organizer').hidden = !organizer;
  $('organizer-actions').hidden = !organizer;
  if (organizer) refreshOrganizer();
  $('submissions-title').textContent = organizer ? 'All submissions' : 'Your submissions';
  if (r.body.competition) $('competition').textContent = r.body.competition;
  await refresh();
  if (!state.timer) state.timer = setInterval(refresh, POLL_MS);
}

// --- the phase

function currentPhase() {
  if (!state.phases) return null;
  const list = state.phases.phases;
  return list.find((p) => p.name === state.phase) || list.find((p) => p.current) || list[0];
}

function renderPhaseSelect() {
  const select = $('phase-select');
  const shown = currentPhase();
  // Rebuilt only when the options change, so that a poll does not close an open list.
  const labels = state.phases.phases.map((p) => p.name + (p.current ? ' (current)' : ''));
  if (select.dataset.labels !== labels.join('\n')) {
    select.dataset.labels = labels.join('\n');
    select.replaceChildren(...state.phases.phases.map((p, i) => el('option', {value: p.name}, labels[i])));
  }
  if (shown) select.value = shown.name;
  const boards = shown ? shown.boards : ['main'];
  if (!boards.includes(state.board)) state.board = boards[0];
  const boardSelect = $('board-select');
  if (boardSelect.dataset.labels !== boards.join('\n')) {
    boardSelect.dataset.labels = boards.join('\n');
    boardSelect.replaceChildren(...boards.map((b) => el('option', {value: b}, b)));
  }
  boardSelect.value = state.board;
  $('board-label').hidden = boards.length < 2;
}

function renderPhase() {
  const p = currentPhase();
  if (!p) return;
  $('phase-title').textContent = (p.title || p.name) + (p.current ? ' — current phase' : '');
  $('phase-window').textContent = 'Submissions from ' + fmtUtc(p.start_s) + ' until ' +
      fmtUtc(p.end_s) + (p.accepts_submissions ? '' : ' (entries migrate from ' +
      p.migrate_from + '; no direct submissions)');
  $('phase-rules').textContent = p.rules || '';
  let board = '';
  if (p.board_hidden_until_published) {
    board = p.published ? 'The board is published.' : 'The board is hidden until the organizers publish it.';
  }
  if (p.hidden) board += ' Problems and per-problem results are for organizers only.';
  $('phase-board-state').textContent = board.trim();
  tickDeadline();
}

// The time left, from the calendar's time at the last poll plus the time elapsed since.
function tickDeadline() {
  const p = currentPhase();
  if (!p) return;
  const now = state.phases.now_s + (Date.now() - state.phasesAt) / 1000;
  let text;
  if (p.start_s !== null && now < p.start_s) {
    text = 'Opens ' + fmtUtc(p.start_s) + ' (in ' + fmtDuration(p.start_s - now) + ')';
  } else if (p.end_s !== null && now < p.end_s) {
    text = 'Deadline ' + fmtUtc(p.end_s) + ' (' + fmtDuration(p.end_s - now) + ' left)';
  } else if (p.end_s !== null) {
    text = 'Ended ' + fmtUtc(p.end_s);
  } else {
    text = 'No deadline';
  }
  $('phase-deadline').textContent = text + (p.open ? '; open for submissions' : '');
}

// --- the leaderboard

function fmtTheta(v) {
  return typeof v === 'number' ? v.toFixed(3) : '—';
}

// The Plackett-Luce cell of a row: the posterior mean of θ, its band as text and as a bar
// (scaled to the largest upper end on the board).
function plCell(m, scale) {
  if (!m) return el('td', {className: 'num pl'}, '—');
  const text = fmtTheta(m.posterior_mean) + ' [' + fmtTheta(m.lower) + ', ' + fmtTheta(m.upper) + ']';
  const bar = el('span', {className: 'pl-bar', 'data-pl': 'bar'});
  if (typeof m.lower === 'number' && typeof m.upper === 'number' && scale > 0) {
    const band = el('span', {className: 'pl-band'});
    band.style.left = (100 * m.lower / scale) + '%';
    band.style.width = Math.max(1, 100 * (m.upper - m.lower) / scale) + '%';
    bar.append(band);
  }
  if (typeof m.posterior_mean === 'number' && scale > 0) {
    const mean = el('span', {className: 'pl-mean'});
    mean.style.left = (100 * m.posterior_mean / scale) + '%';
    bar.append(mean);
  }
  return el('td', {className: 'num pl', 'data-pl': 'theta'}, text, bar);
}

function plNote(pl) {
  if (!pl) return '';
  if (pl.error) return 'Bayesian ranking (Plackett-Luce): not available — ' + pl.error + '.';
  const band = typeof pl.band === 'number' ? Math.round(100 * pl.band) + '%' : 'credible';
  return 'θ: the Bayesian Plackett-Luce rating after batch ' + pl.time + ', i.e. the posterior ' +
      'probability that the submission is the best one on a random run (problem and trial), ' +
      'ranking submissions by their best value so far, with its ' + band + ' credible band ' +
      '(Wurth, Stegherr, Kemper, Heider and Hähner, "Pareto-Optimal Anytime Algorithms via ' +
      'Bayesian Racing"; ' + pl.runs + (pl.runs === 1 ? ' run' : ' runs') + '). Pareto set: no other submission is better at ' +
      'every batch (the anytime Pareto set: ' + (pl.pareto_set.join(', ') || 'none') + '). ' +
      'The random-search baseline is not ranked.';
}

function renderBoard(r, phase) {
  const table = $('board-table');
  const message = $('board-message');
  const pending = $('pending');
  pending.replaceChildren();
  $('pl-note').textContent = '';
  if (!r) {
    table.hidden = true;
    message.textContent = (phase.unpublished_reason !== undefined
        ? 'The organizers withdrew the board of phase ' + phase.name + ' on ' +
          fmtUtc(phase.unpublished_at_s) + ': ' + phase.unpublished_reason + '. It is hidden ' +
          'until they publish it again'
        : 'The board of phase ' + phase.name + ' is hidden until the organizers publish it') +
        (state.token ? ': you see the states of your own submissions below, never scores or ranks.'
                     : '.');
    return;
  }
  if (!r.ok) {
    table.hidden = true;
    message.textContent = r.body.error || ('HTTP ' + r.status);
    return;
  }
  const b = r.body;
  message.textContent = b.per_problem ? '' : 'Overall scores only: per-problem results of this phase are for organizers.';
  $('board-problems-head').hidden = !b.per_problem;
  const pl = b.plackett_luce || null;
  const plByName = new Map(((pl && pl.methods) || []).map((m) => [m.name, m]));
  const scale = Math.max(0, ...[...plByName.values()].map((m) => typeof m.upper === 'number' ? m.upper : 0));
  $('board-rows').replaceChildren(...b.rows.map((row) => {
    const m = plByName.get(row.name);
    const cells = [
      el('td', {className: 'num'}, row.rank),
      el('td', {className: 'name'}, row.name),
      el('td', {className: 'team'}, row.baseline ? '' : (row.team || '')),
      el('td', {className: 'num score'}, fmtScore(row.score)),
      el('td', {className: 'num'}, fmtScore(row.score_error)),
      el('td', {className: 'num'}, fmtScore(row.median_score)),
      plCell(m, scale),
      el('td', {className: 'pl' + (m && m.pareto ? ' pareto' : ''), 'data-pl': 'pareto',
        title: m && m.eliminated_by ? 'eliminated by ' + m.eliminated_by : ''},
        !m ? '' : m.pareto ? '★ member' : (m.eliminated_by ? 'eliminated by ' + m.eliminated_by : 'no')),
      el('td', {className: 'state state-' + (row.baseline ? 'finished' : row.state)},
          row.baseline ? 'baseline' : (row.state === 'finished' && !row.complete ? 'running'
                                                                                 : row.state)),
    ];
    if (b.per_problem) {
      const details = el('details', {}, el('summary', {}, row.problems.length + (row.problems.length === 1 ? ' problem' : ' problems')),
          el('table', {}, ...row.problems.map((p) => el('tr', {},
              el('td', {}, p.problem), el('td', {className: 'num'}, fmtScore(p.score)),
              el('td', {className: 'num'}, p.trials + ' trials')))));
      cells.push(el('td', {}, details));
    }
    return el('tr', {className: row.baseline ? 'baseline' : '', 'data-name': row.name}, ...cells);
  }));
  table.hidden = false;
  $('pl-note').textContent = plNote(pl);
  if (b.rows_rule && b.rows_rule !== 'submission') {
    pending.append(el('p', {className: 'note'}, 'One row per team (' + b.rows_rule.replace('team_', '') +
        ' submission); ' + b.rows_not_shown + ' other submissions not shown.'));
  }
  if (b.pending.length > 0) {
    pending.append(el('p', {className: 'note'}, 'Not on the board yet: ' + b.pending.map((p) =>
        `${p.name} (${p.jobs_done}/${p.jobs_total} jobs${p.jobs_failed ? ', ' + p.jobs_failed + ' lost' : ''})`)
        .join(', ')));
  }
  if (b.removed && b.removed.length > 0) {
    pending.append(el('p', {className: 'note'}, 'Off the board:'),
        el('ul', {id: 'removed'}, ...b.removed.map((x) =>
            el('li', {'data-name': x.name}, `${x.name}${x.team ? ' (' + x.team + ')' : ''}: ${x.why}`))));
  }
  pending.append(el('p', {className: 'note'}, 'Scores are normalized by the best value any ' +
      'submission found on each problem, so they move when others submit; compare ranks.'));
}

// --- submissions

const counts = (o) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(', ') || 'none';

// The content of a submission's log row (as `bbo logs`).
function logParts(log) {
  const parts = [
    el('p', {}, `Studies by state: ${counts(log.studies_by_state)}. Errors by kind: ` +
        `${counts(log.errors_by_kind)} (${log.studies_with_errors} studies with errors).`),
  ];
  if (log.errors.length > 0) {
    parts.push(el('ul', {className: 'errors'}, ...log.errors.map((x) =>
        el('li', {}, `${x.problem} (study ${x.study_id}, batch ${x.batch}) ${x.kind}: ${x.message}`))));
    if (log.total_errors > log.errors.length) {
      parts.push(el('p', {className: 'note'}, `The first ${log.errors.length} of ${log.total_errors} errors.`));
    }
  }
  if (log.studies.length > 0) {
    parts.push(el('details', {}, el('summary', {}, `Studies (${log.studies_total})`),
        el('table', {}, el('tr', {}, ...['Study', 'Problem', 'Trial', 'Board', 'State', 'Batches',
          'Why it ended'].map((h) => el('th', {}, h))),
        ...log.studies.map((x) => el('tr', {}, el('td', {className: 'num'}, x.study_id),
            el('td', {}, x.problem), el('td', {className: 'num'}, x.trial), el('td', {}, x.board),
            el('td', {}, x.state), el('td', {className: 'num'}, `${x.batches_done}/${x.n_batches}`),
            el('td', {}, x.end_reason))))));
  }
  return parts;
}

function logRow(parts, columns) {
  return el('tr', {className: 'log-row'}, el('td', {colSpan: columns, className: 'log'}, ...parts));
}

// Opens a submission's log under its row, or closes it. Open logs stay open across polls (their
// content as fetched; close and open again to reload).
async function toggleLog(row, s, columns) {
  const next = row.nextElementSibling;
  if (next && next.classList.contains('log-row')) {
    next.remove();
    state.openLogs.delete(s.id);
    return;
  }
  const loading = logRow(['Loading…'], columns);
  row.after(loading);
  const r = await api('/api/submissions/' + s.id + '/log');
  const parts = r.ok ? logParts(r.body) : [r.body.error || ('HTTP ' + r.status)];
  state.openLogs.set(s.id, parts);
  loading.replaceWith(logRow(parts, columns));
}

function renderSubmissions(r) {
  const table = $('submissions-table');
  const message = $('submissions-message');
  if (!r.ok) {
    table.hidden = true;
    message.textContent = r.body.error || ('HTTP ' + r.status);
    return;
  }
  const organizer = state.me && state.me.role === 'organizer';
  const scoresShown = {};
  for (const p of state.phases.phases) scoresShown[p.name] = p.shows_scores;
  const heads = ['ID', 'Name', ...(organizer ? ['Team'] : []), 'Phase', 'State', 'Jobs done',
    'Lost', 'Studies with errors', 'Score', 'Goes on', ''];
  $('submissions-head').replaceChildren(...heads.map((h) => el('th', {}, h)));
  const list = r.body.submissions;
  message.textContent = list.length === 0 ? 'No submissions yet.' :
      (r.body.truncated ? `The ${r.body.limit} most recent submissions.` : '');
  $('submissions-rows').replaceChildren(...list.map((s) => {
    const score = !scoresShown[s.phase] ? 'hidden' : fmtScore(s.score);
    const button = el('button', {type: 'button', className: 'log-button'}, 'Log');
    const buttons = rowButtons(s, organizer);
    const row = el('tr', {'data-id': s.id, 'data-name': s.name},
        el('td', {className: 'num'}, s.id),
        el('td', {className: 'name'}, s.name),
        ...(organizer ? [el('td', {}, s.team)] : []),
        el('td', {className: 'phase'}, s.phase),
        el('td', {className: 'state state-' + s.state, title: s.state_detail}, s.state),
        el('td', {className: 'num'}, `${s.jobs_done}/${s.jobs_total}`),
        el('td', {className: 'num'}, s.jobs_failed),
        el('td', {className: 'num'}, s.studies_with_errors),
        el('td', {className: 'num score'}, score),
        el('td', {className: 'finalist'}, s.finalist ? `to ${s.next_phase}: ${s.finalist}` : ''),
        el('td', {className: 'buttons'}, button, ...buttons));
    button.addEventListener('click', () => toggleLog(row, s, heads.length));
    const open = state.openLogs.get(s.id);
    return open ? [row, logRow(open, heads.length)] : [row];
  }).flat());
  table.hidden = list.length === 0;
}

// The phase that takes submissions from phase `name` ('' when none).
function nextPhase(name) {
  const next = ((state.phases && state.phases.phases) || []).find((p) => p.migrate_from === name);
  return next ? next.name : '';
}

// A submission's buttons: a team chooses and withdraws its own; an organizer hides, sets the
// finalist and withdraws any.
function rowButtons(s, organizer) {
  const out = [];
  const phase = ((state.phases && state.phases.phases) || []).find((p) => p.name === s.phase);
  const details = el('button', {type: 'button', className: 'details-button'}, 'Details');
  details.addEventListener('click', () => openSubmission(s.id));
  out.push(details);
  const withdrawn = s.state === 'withdrawn';
  const button = (cls, text, handler) => {
    const b = el('button', {type: 'button', className: cls}, text);
    b.addEventListener('click', handler);
    out.push(b);
  };
  if (!organizer && nextPhase(s.phase) && phase && phase.open && !withdrawn && !s.chosen) {
    button('choose-button', 'Choose', () => act('/api/choose', {submission_id: s.id},
        (b) => `Submission ${s.name} goes on to phase ${b.next_phase} when phase ${s.phase} ends.`));
  }
  if (!withdrawn) {
    button('withdraw-button', 'Withdraw', () => {
      if (!window.confirm(`Withdraw submission ${s.name}? Its queued jobs are cancelled.`)) return;
      act('/api/withdraw', {submission_id: s.id},
          (b) => `Withdrew ${s.name}: ${b.jobs_cancelled} queued job(s) cancelled.`);
    });
  }
  if (organizer) {
    const hidden = s.hidden !== '';
    button(hidden ? 'unhide-button' : 'hide-button', hidden ? 'Unhide…' : 'Hide…', () => {
      const reason = askReason(hidden ? 'putting it back on the board' : 'taking it off the board');
      if (reason === null) return;
      act('/api/admin/hide', {submission_id: s.id, undo: hidden, reason},
          () => `${s.name} is ${hidden ? 'back on' : 'off'} the board.`);
    });
    if (nextPhase(s.phase)) {
      button('finalist-button', 'Set as finalist…', () => {
        const reason = askReason('making it its team\'s entry in the next phase');
        if (reason === null) return;
        act('/api/admin/finalist', {submission_id: s.id, reason},
            (b) => `${s.name} is team ${s.team}'s entry in phase ${b.next_phase}.`);
      });
    }
  }
  return out;
}

// --- organizers

// The organizer panel's tables: tokens, lost jobs, the phase's events, the audit log.
async function refreshOrganizer() {
  const p = currentPhase();
  const [tokens, jobs, events, audit] = await Promise.all([
    api('/api/admin/tokens'), api('/api/admin/jobs'),
    p ? api('/api/admin/events?phase=' + encodeURIComponent(p.name)) : Promise.resolve(null),
    api('/api/admin/audit?limit=50'),
    refreshRegistrations(),
  ]);
  if (tokens.ok) {
    $('tokens-rows').replaceChildren(...tokens.body.tokens.map((t) => {
      const rotate = el('button', {type: 'button', className: 'rotate-button'}, 'Rotate');
      const revoke = el('button', {type: 'button', className: 'revoke-button'}, 'Revoke');
      rotate.addEventListener('click', () => tokenAction(t.kind, t.owner, 'rotate'));
      revoke.addEventListener('click', () => {
        if (window.confirm(`Revoke every token of ${t.kind} ${t.owner}?`)) tokenAction(t.kind, t.owner, 'revoke');
      });
      return el('tr', {'data-owner': t.owner}, el('td', {}, t.kind), el('td', {}, t.owner),
          el('td', {}, fmtUtc(t.created_at_s)), el('td', {}, t.revoked_at_s ? fmtUtc(t.revoked_at_s) : ''),
          el('td', {}, ...(t.revoked_at_s ? [] : [rotate, revoke])));
    }));
  }
  if (jobs.ok) {
    $('jobs-rows').replaceChildren(...jobs.body.jobs.map((j) => {
      const requeue = el('button', {type: 'button', className: 'requeue-button'}, 'Requeue');
      requeue.addEventListener('click', () => act('/api/admin/requeue', {job_id: j.job_id},
          (b) => `${b.requeued} job(s) back in the queue.`));
      return el('tr', {}, el('td', {className: 'num'}, j.job_id), el('td', {}, j.submission),
          el('td', {}, j.problem), el('td', {className: 'num'}, j.trial),
          el('td', {className: 'num'}, j.attempts), el('td', {}, j.last_error), el('td', {}, requeue));
    }));
  }
  if (events && events.ok) {
    $('events-rows').replaceChildren(...events.body.events.map((e) => el('tr', {'data-kind': e.kind},
        el('td', {}, fmtUtc(e.at_s)), el('td', {}, e.kind), el('td', {}, e.who), el('td', {}, e.team),
        el('td', {className: 'num'}, e.submission_id || ''), el('td', {}, e.detail))));
  }
  if (audit.ok) {
    $('audit-rows').replaceChildren(...audit.body.entries.slice().reverse().map((a) => el('tr', {},
        el('td', {}, fmtUtc(a.at_s)), el('td', {}, a.who), el('td', {}, a.action),
        el('td', {}, a.allowed ? 'yes' : 'REFUSED'), el('td', {}, a.detail))));
  }
}

async function tokenAction(kind, owner, action) {
  const r = await act('/api/admin/token', {kind, owner, action},
      () => action === 'revoke' ? `Every token of ${kind} ${owner} revoked.` : `New token of ${kind} ${owner} below.`);
  $('new-token').hidden = !(r.ok && r.body.token);
  $('new-token-value').textContent = r.ok && r.body.token ? r.body.token : '';
}

function wireOrganizerActions() {
  $('publish-button').addEventListener('click', () => {
    const p = currentPhase();
    act('/api/admin/publish', {phase: p.name}, () => `Published the board of phase ${p.name}.`);
  });
  $('unpublish-button').addEventListener('click', () => {
    const p = currentPhase();
    const reason = askReason('withdrawing the publication');
    if (reason === null) return;
    act('/api/admin/publish', {phase: p.name, undo: true, reason},
        () => `The board of phase ${p.name} is hidden again.`);
  });
  $('stop-race-button').addEventListener('click', () => {
    const p = currentPhase();
    const reason = askReason('ending the race');
    if (reason === null) return;
    act('/api/admin/stop-race', {phase: p.name, reason}, () => `Stopped the race of phase ${p.name}.`);
  });
  $('team-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const undo = ev.submitter && ev.submitter.value === 'requalify';
    const team = $('team-name').value.trim();
    const reason = askReason(undo ? 'requalifying the team' : 'disqualifying the team');
    if (reason === null || !team) return;
    const p = currentPhase();
    act('/api/admin/disqualify', {phase: p.name, team, undo, reason},
        () => `Team ${team} is ${undo ? 'requalified' : 'disqualified'} in phase ${p.name}.`);
  });
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const owner = $('token-owner').value.trim();
    if (owner) tokenAction($('token-kind').value, owner, 'add');
  });
  $('requeue-all').addEventListener('click', () => act('/api/admin/requeue', {job_id: 0},
      (b) => `${b.requeued} job(s) back in the queue.`));
}

function renderQueue(r) {
  const dl = $('queue');
  if (!r.ok) {
    dl.replaceChildren(el('dt', {}, 'error'), el('dd', {}, r.body.error));
    return;
  }
  const q = r.body;
  const wait = q.estimated_wait_s < 0 ? 'unknown' : Math.round(q.estimated_wait_s) + ' s';
  // Organizers only (GET /api/queue refuses everyone else).
  const items = [['Jobs queued', q.jobs_queued], ['Jobs running', q.jobs_running],
    ['Estimated wait', wait], ['Jobs done', q.jobs_done], ['Jobs lost', q.jobs_failed],
    ['Jobs withdrawn', q.jobs_withdrawn],
    ['Studies running', q.running_studies], ['Workers connected', q.workers_connected],
    ['Worker slots', q.worker_slots]].filter(([, v]) => v !== undefined);
  dl.replaceChildren(...items.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {'data-key': k}, v)]));
}

async function loadReport() {
  const p = currentPhase();
  const message = $('report-message');
  message.textContent = 'Computing the report…';
  const r = await api('/api/report?phase=' + encodeURIComponent(p.name) + '&board=' +
      encodeURIComponent(state.board));
  if (!r.ok) {
    message.textContent = r.body.error || ('HTTP ' + r.status);
    return;
  }
  message.textContent = `Report of phase ${r.body.phase}, board ${r.body.board}.`;
  // A sandboxed frame without scripts or this origin's rights shows the report's own page.
  const frame = $('report');
  frame.srcdoc = r.body.html;
  frame.hidden = false;
  const link = $('download-report');
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([r.body.html], {type: 'text/html'}));
  link.hidden = false;
}

// --- polling

// The landing section: the competition's title, description, terms and calendar.
function renderLanding() {
  const c = state.phases;
  $('competition').textContent = c.title || c.competition || 'bbo-arena';
  $('competition-title').textContent = c.title || c.competition || '';
  $('competition-description').textContent = c.description || '';
  $('terms').hidden = !c.terms;
  $('terms-text').textContent = c.terms || '';
  $('calendar-rows').replaceChildren(...c.phases.map((p) => el('tr', {'data-phase': p.name},
      el('td', {}, (p.title || p.name) + (p.current ? ' (current)' : '')),
      el('td', {}, fmtUtc(p.start_s)), el('td', {}, fmtUtc(p.end_s)),
      el('td', {}, p.board_hidden_until_published && !p.published ? 'hidden until published'
                   : p.hidden ? 'overall scores' : 'public'))));
}

async function refresh() {
  if (state.polling) {
    state.again = true;  // a change of phase or board during a poll: poll once more after it
    return;
  }
  state.polling = true;
  state.again = false;
  try {
    const token = state.token;
    const phases = await api('/api/phases');
    if (state.token !== token) return;  // signed in or out meanwhile
    if (!phases.ok) {
      $('phase-title').textContent = phases.body.error || ('HTTP ' + phases.status);
      return;
    }
    state.phases = phases.body;
    state.phasesAt = Date.now();
    renderLanding();
    renderRegistration();
    renderPhaseSelect();
    renderPhase();
    const p = currentPhase();
    const boardHidden = p.board_hidden_until_published && !p.shows_scores;
    const [board, subs, queue] = await Promise.all([
      boardHidden ? Promise.resolve(null) : api('/api/leaderboard?phase=' +
          encodeURIComponent(p.name) + '&board=' + encodeURIComponent(state.board)),
      token ? api('/api/submissions') : Promise.resolve(null),
      token && state.me && state.me.role === 'organizer' ? api('/api/queue') : Promise.resolve(null),
    ]);
    if (state.token !== token) return;
    renderBoard(board, p);
    if (subs) renderSubmissions(subs);
    if (queue) renderQueue(queue);
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString('en-GB', {hour12: false});
  } catch (e) {
    $('updated').textContent = 'cannot reach the server (' + e.message + '); retrying';
  } finally {
    state.polling = false;
    if (state.again) refresh();
  }
}

document.addEventListener('DOMContentLoaded', () => {
  wireOrganizerActions();
  $('sign-in-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const token = $('token').value.trim();
    $('token').value = '';
    if (token) signIn(token);
  });
  $('sign-out').addEventListener('click', () => signOut(''));
  $('phase-select').addEventListener('change', (ev) => {
    state.phase = ev.target.value;
    $('report').hidden = true;
    $('report-message').textContent = '';
    refresh().then(() => { if (state.me && state.me.role === 'organizer') refreshOrganizer(); });
  });
  $('board-select').addEventListener('change', (ev) => {
    state.board = ev.target.value;
    refresh();
  });
  $('load-report').addEventListener('click', loadReport);
  setInterval(tickDeadline, 1000);
  if (state.token) signIn(state.token);
  else showSignIn('');
});
