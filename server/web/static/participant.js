// bbo-arena's web page, the participants' part (docs/web.md): registering a team, uploading a
// submission's archive, and a submission's own page with its plots (SVG drawn here from the
// JSON API; nothing is fetched from anywhere else). Uses app.js's helpers ($, el, api, post,
// state). Every text from the server goes into the page through textContent.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// Round tick values covering [lo, hi], about `n` of them.
function ticks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(+v.toFixed(10));
  return out;
}

// A line chart: `series` [{name, values (null = no value), cls}] over x = 0..n-1, optional
// horizontal `limit` {value, label}. Returns an <svg> with a title, axes, a legend.
function lineChart({title, xlabel, ylabel, series, limit, dataName}) {
  const W = 420, H = 240, L = 52, R = 12, T = 28, B = 40;
  const all = series.flatMap((s) => s.values.filter((v) => typeof v === 'number'));
  // A limit far above every value would flatten them: it is then said, not drawn.
  const dataMax = Math.max(0, ...all);
  const drawLimit = limit && typeof limit.value === 'number' && limit.value <= 10 * dataMax;
  if (drawLimit) all.push(limit.value);
  let lo = Math.min(0, ...all), hi = Math.max(...all, lo + 1e-9);
  if (!isFinite(lo) || !isFinite(hi)) { lo = 0; hi = 1; }
  const pad = (hi - lo) * 0.05;
  hi += pad;
  if (lo < 0) lo -= pad;
  const n = Math.max(2, ...series.map((s) => s.values.length));
  const x = (i) => L + (W - L - R) * i / (n - 1);
  const y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  const root = svg('svg', {viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
    class: 'chart', 'data-chart': dataName || ''});
  root.append(svg('title', {}, title));
  root.append(svg('text', {x: L, y: 16, class: 'chart-title'}, title));
  for (const v of ticks(lo, hi, 4)) {
    root.append(svg('line', {x1: L, x2: W - R, y1: y(v), y2: y(v), class: 'grid'}));
    root.append(svg('text', {x: L - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick'},
        Math.abs(v) >= 100 ? v.toFixed(0) : +v.toPrecision(3)));
  }
  for (const i of ticks(0, n - 1, 6)) {
    if (i !== Math.round(i)) continue;
    root.append(svg('text', {x: x(i), y: H - B + 16, 'text-anchor': 'middle', class: 'tick'}, i + 1));
  }
  root.append(svg('line', {x1: L, x2: L, y1: T, y2: H - B, class: 'axis'}));
  root.append(svg('line', {x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis'}));
  root.append(svg('text', {x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', class: 'label'}, xlabel));
  root.append(svg('text', {x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', class: 'label',
    transform: `rotate(-90 12 ${(T + H - B) / 2})`}, ylabel));
  if (drawLimit) {
    root.append(svg('line', {x1: L, x2: W - R, y1: y(limit.value), y2: y(limit.value), class: 'limit'}));
    root.append(svg('text', {x: W - R, y: y(limit.value) - 4, 'text-anchor': 'end', class: 'tick limit-label'}, limit.label));
  } else if (limit && typeof limit.value === 'number') {
    root.append(svg('text', {x: W - R, y: 16, 'text-anchor': 'end', class: 'tick limit-label'},
        limit.label + ' (far above)'));
  }
  series.forEach((s, k) => {
    // A polyline per run of values (a batch without a value breaks the line).
    let run = [];
    const flush = () => {
      if (run.length > 1) root.append(svg('polyline', {points: run.join(' '), class: 'series ' + s.cls, 'data-series': s.name}));
      if (run.length === 1) {
        const [px, py] = run[0].split(',');
        root.append(svg('circle', {cx: px, cy: py, r: 2.5, class: 'series ' + s.cls, 'data-series': s.name}));
      }
      run = [];
    };
    s.values.forEach((v, i) => {
      if (typeof v === 'number') run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      else flush();
    });
    flush();
    root.append(svg('line', {x1: L + 8 + k * 150, x2: L + 28 + k * 150, y1: T - 4, y2: T - 4, class: 'series ' + s.cls}));
    root.append(svg('text', {x: L + 32 + k * 150, y: T, class: 'legend'}, s.name));
  });
  return root;
}

// --- a submission's page

async function openSubmission(id) {
  const section = $('submission-page');
  section.hidden = false;
  $('submission-body').replaceChildren(el('p', {className: 'note'}, 'Loading…'));
  section.scrollIntoView({block: 'start'});
  const r = await api('/api/submissions/' + id);
  if (!r.ok) {
    $('submission-heading').textContent = 'Submission ' + id;
    $('submission-body').replaceChildren(el('p', {className: 'error'}, r.body.error || ('HTTP ' + r.status)));
    return;
  }
  renderSubmissionPage(r.body);
}

function renderSubmissionPage(s) {
  $('submission-heading').textContent = `Submission ${s.name} (${s.id})`;
  const parts = [];
  parts.push(el('p', {}, 'Team ', el('strong', {}, s.team || '—'), `, phase ${s.phase}, ` +
      `${s.trials} ${s.trials === 1 ? 'trial' : 'trials'} per problem, submitted ` +
      `${fmtUtc(s.created_at_s)}. State: `,
      el('span', {className: 'state state-' + s.state, id: 'submission-state'}, s.state),
      ' — ' + s.state_detail));
  if (!s.verdict.ok) {
    parts.push(el('h3', {}, 'The check'));
    parts.push(el('pre', {className: 'verdict error', id: 'submission-verdict'}, s.verdict.text));
  } else {
    parts.push(el('p', {className: 'note', id: 'submission-verdict'},
        'The check: no study failed and the optimizer made its own suggestions (as bbo check judges).'));
  }
  parts.push(el('h3', {}, 'Best so far against random search'));
  const c = s.curves;
  if (!c.available) {
    parts.push(el('p', {className: 'note', id: 'curves-message'}, 'Not shown: ' + c.why));
  } else {
    parts.push(el('p', {className: 'note'}, 'Normalized mean best value so far after each batch ' +
        '(Bayesmark\'s norm-mean-perf: 1 = one random guess, 0 = the best value any submission ' +
        'found; lower is better), the submission against the pooled random-search baseline' +
        (c.per_problem ? ', per problem.' : ', over all problems (per-problem results of this phase are for organizers).')));
    parts.push(el('div', {className: 'charts', id: 'curves'}, ...c.problems.map((p) => lineChart({
      title: p.problem, xlabel: 'batch', ylabel: 'normalized best so far', dataName: 'curve',
      series: [{name: s.name, values: p.submission, cls: 'mine'},
               {name: 'random search', values: p.random_search, cls: 'baseline'}]}))));
  }
  parts.push(el('h3', {}, 'The optimizer\'s time per batch'));
  const t = s.timing;
  if (t.batches.length === 0) {
    parts.push(el('p', {className: 'note', id: 'timing-message'},
        s.state === 'queued' || s.state === 'running' ? 'No study of it has ended yet.'
            : 'No batch of it ran: its studies ended before their first batch (see the check above).'));
  } else {
    parts.push(el('p', {className: 'note'}, `Over its ${t.studies} ended ` +
        `${t.studies === 1 ? 'study' : 'studies'}: the median and ` +
        `the slowest turn (observe + suggest) of each batch, against the ${t.suggest_budget_s} s ` +
        `allowed per turn. The slowest study used ${Number(t.slowest_study_s).toFixed(2)} s of ` +
        `its ${t.study_budget_s} s. Evaluating the objective is not counted.`));
    parts.push(el('div', {className: 'charts', id: 'timing'}, lineChart({
      title: 'optimizer seconds per batch', xlabel: 'batch', ylabel: 'seconds', dataName: 'timing',
      series: [{name: 'median', values: t.batches.map((b) => b.median_s), cls: 'mine'},
               {name: 'slowest', values: t.batches.map((b) => b.max_s), cls: 'slow'}],
      limit: {value: t.suggest_budget_s, label: `budget ${t.suggest_budget_s} s`}})));
  }
  parts.push(el('h3', {}, 'Plackett-Luce rating'));
  const pl = s.rating;
  parts.push(el('p', {id: 'submission-rating', className: pl.error ? 'note' : ''}, pl.error
      ? 'Not available: ' + pl.error
      : `θ = ${fmtTheta(pl.posterior_mean)} [${fmtTheta(pl.lower)}, ${fmtTheta(pl.upper)}]` +
        ` among ${pl.methods} submissions; ` + (pl.pareto ? 'in the anytime Pareto set.'
        : pl.eliminated_by ? 'eliminated by ' + pl.eliminated_by + '.' : 'not in the anytime Pareto set.')));
  parts.push(el('h3', {}, 'Errors and studies'), ...logParts(s.log));
  $('submission-body').replaceChildren(...parts);
}

// --- uploading

async function upload(ev) {
  ev.preventDefault();
  const message = $('upload-message');
  const file = $('upload-file').files[0];
  const name = $('upload-name').value.trim();
  message.className = 'error';
  if (!file) { message.textContent = 'Choose the archive of your submission folder.'; return; }
  if (file.size > UPLOAD_LIMIT) {
    message.textContent = `The archive is ${file.size} bytes; the page takes at most ${UPLOAD_LIMIT} ` +
        '(larger ones: bbo submit).';
    return;
  }
  const params = new URLSearchParams({name});
  const trials = $('upload-trials').value.trim();
  if (trials) params.set('trials', trials);
  const p = currentPhase();
  if (p && p.open) params.set('phase', p.name);
  message.className = 'note';
  message.textContent = 'Uploading and checking…';
  const res = await fetch('/api/submit?' + params.toString(), {method: 'POST', body: file,
    headers: {'Content-Type': 'application/octet-stream', Authorization: 'Bearer ' + state.token},
    cache: 'no-store', credentials: 'omit'});
  let body = null;
  try { body = await res.json(); } catch (e) { body = {error: 'HTTP ' + res.status}; }
  if (!res.ok) {
    message.className = 'error';
    message.textContent = 'Refused: ' + (body.error || ('HTTP ' + res.status));
    return;
  }
  message.className = 'note';
  message.textContent = `Submission ${name} registered (id ${body.submission_id}, ${body.kind}) in ` +
      `phase ${body.phase}: ${body.jobs} studies queued, ${body.trials} trials per problem. ` +
      'Its page shows the check as its studies end.';
  $('upload-form').reset();
  refresh();
}

const UPLOAD_LIMIT = 16 * 1024 * 1024;

// --- registering

function renderRegistration() {
  const c = state.phases;
  const mode = c ? c.registration : 'closed';
  const section = $('register');
  section.hidden = state.token !== '' || mode === 'closed';
  if (section.hidden) return;
  $('register-invite-label').hidden = mode !== 'invite_code';
  $('register-invite').required = mode === 'invite_code';
  $('register-terms-label').hidden = !c.terms;
  $('register-terms').required = !!c.terms;
  $('register-rule').textContent = mode === 'open' ? 'Registration is open: your team\'s token is shown at once.'
      : mode === 'invite_code' ? 'Registration needs an invite code from the organizers.'
      : 'The organizers approve each registration: keep the claim code you are given, and come back with it.';
  $('claim-form').hidden = mode !== 'approval';
}

function showSecret(kind, value, text) {
  $('register-result').hidden = false;
  $('register-result-text').textContent = text;
  $('register-secret-kind').textContent = kind;
  $('register-secret').textContent = value;
}

async function register(ev) {
  ev.preventDefault();
  const body = {team: $('register-team').value.trim()};
  const email = $('register-email').value.trim();
  if (email) body.email = email;
  if (!$('register-terms-label').hidden) body.accept_terms = $('register-terms').checked;
  if (!$('register-invite-label').hidden) body.invite_code = $('register-invite').value.trim();
  const r = await post('/api/register', body);
  const message = $('register-message');
  if (!r.ok) {
    message.className = 'error';
    message.textContent = 'Refused: ' + (r.body.error || ('HTTP ' + r.status));
    return;
  }
  message.className = 'note';
  message.textContent = '';
  $('register-form').reset();
  if (r.body.token) showSecret('Your team\'s token', r.body.token, `Team ${r.body.team} is registered. ${r.body.message}.`);
  else showSecret('Your claim code', r.body.claim, `Team ${r.body.team}: ${r.body.message}.`);
}

async function claim(ev) {
  ev.preventDefault();
  const r = await post('/api/register/claim', {claim: $('claim-code').value.trim()});
  const message = $('register-message');
  if (!r.ok) {
    message.className = 'error';
    message.textContent = 'Refused: ' + (r.body.error || ('HTTP ' + r.status));
    return;
  }
  message.className = r.body.state === 'rejected' ? 'error' : 'note';
  message.textContent = `Team ${r.body.team}: ${r.body.message}.`;
  if (r.body.token) {
    $('claim-form').reset();
    showSecret('Your team\'s token', r.body.token, `Team ${r.body.team} is registered.`);
  }
}

// --- organizers: registrations and invite codes

async function refreshRegistrations() {
  const [regs, invites] = await Promise.all([api('/api/admin/registrations'), api('/api/admin/invites')]);
  if (regs.ok) {
    $('registration-mode').textContent = 'Registration: ' + regs.body.mode + '.';
    $('registrations-rows').replaceChildren(...regs.body.registrations.map((x) => {
      const cells = [el('td', {}, x.team), el('td', {}, x.state), el('td', {}, x.email),
        el('td', {}, fmtUtc(x.created_at_s)), el('td', {}, x.token_issued_at_s ? fmtUtc(x.token_issued_at_s) : ''),
        el('td', {}, x.decided_by + (x.reason ? ': ' + x.reason : ''))];
      const buttons = el('td', {});
      if (x.state === 'pending') {
        const approve = el('button', {type: 'button', className: 'approve-button'}, 'Approve');
        const reject = el('button', {type: 'button', className: 'reject-button'}, 'Reject…');
        approve.addEventListener('click', () => act('/api/admin/registration', {team: x.team, approve: true},
            () => `Team ${x.team} approved: it takes its token with its claim code.`).then(refreshRegistrations));
        reject.addEventListener('click', () => {
          const reason = askReason('rejecting the registration');
          if (reason === null) return;
          act('/api/admin/registration', {team: x.team, approve: false, reason},
              () => `Team ${x.team} rejected.`).then(refreshRegistrations);
        });
        buttons.append(approve, reject);
      }
      return el('tr', {'data-team': x.team}, ...cells, buttons);
    }));
  }
  if (invites.ok) {
    $('invites-rows').replaceChildren(...invites.body.invites.map((i) => {
      const revoke = el('button', {type: 'button', className: 'invite-revoke-button'}, 'Revoke');
      revoke.addEventListener('click', () => act('/api/admin/invite/revoke', {id: i.id},
          () => `Invite code ${i.id} revoked.`).then(refreshRegistrations));
      return el('tr', {'data-id': i.id}, el('td', {className: 'num'}, i.id), el('td', {className: 'num'}, i.uses_left),
          el('td', {}, i.note), el('td', {}, i.created_by), el('td', {}, fmtUtc(i.created_at_s)),
          el('td', {}, i.revoked_at_s ? fmtUtc(i.revoked_at_s) : ''), el('td', {}, i.revoked_at_s ? '' : revoke));
    }));
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('register-form').addEventListener('submit', register);
  $('claim-form').addEventListener('submit', claim);
  $('upload-form').addEventListener('submit', upload);
  $('submission-close').addEventListener('click', () => { $('submission-page').hidden = true; });
  $('invite-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const r = await act('/api/admin/invite', {uses: Number($('invite-uses').value) || 1,
      note: $('invite-note').value.trim()}, (b) => `Invite code ${b.id} for ${b.uses} registration(s) below.`);
    $('new-invite').hidden = !r.ok;
    $('new-invite-value').textContent = r.ok ? r.body.code : '';
    refreshRegistrations();
  });
});
