// The web leaderboard in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core; no browser download). Run twice by run_browser_test.sh on a three-phase
// competition: STAGE=feedback while the feedback phase is open (an organizer makes an invite
// code, a new team registers with it, uploads a good and two broken archives, reads its
// submissions' pages with their plots; a team chooses its finalist with the Choose button), then
// STAGE=final in the final phase, its board hidden until published (what a team and an organizer
// see, a bad token's clear refusal, markup that stays text, the page refreshing itself, every
// organizer action). Saves screenshots to $ARTIFACTS. Prints "N passed, N failed" and exits 1 on
// any failure.
import assert from 'node:assert/strict';
import path from 'node:path';
import {chromium} from 'playwright-core';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`browser_test: ${name} is not set (run run_browser_test.sh)`);
  return v;
};
const URL_ = env('WEB_URL');
const RED = env('RED_TOKEN');
const ORGANIZER = env('ORGANIZER_TOKEN');
const HTML_NAME = env('HTML_NAME');
const ARTIFACTS = env('ARTIFACTS');
const STAGE = env('STAGE');
const TIMEOUT = 10000;

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(e && e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
  }
}

const browser = await chromium.launch({
  executablePath: env('CHROMIUM'),
  timeout: 30000,
  // As root on a machine with no network: no sandbox, no background connections.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const shot = (page, name) => page.screenshot({path: path.join(ARTIFACTS, name), fullPage: true});

// A fresh tab (its own sessionStorage) whose scripts errors and blocked requests are recorded.
async function openPage() {
  const context = await browser.newContext({viewport: {width: 1280, height: 900}});
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push('page error: ' + e.message));
  page.on('console', (m) => {
    // Refusals the checks provoke on purpose (400, 401, 403, 409) are logged by the browser too.
    if (m.type() === 'error' && !/status of (400|401|403|409)/.test(m.text())) {
      page.problems.push('console: ' + m.text());
    }
  });
  page.setDefaultTimeout(TIMEOUT);
  await page.goto(URL_);
  return page;
}

async function signIn(page, token) {
  await page.fill('#token', token);
  await page.click('#sign-in-button');
  await page.waitForSelector('#updated:has-text("updated")');
}

// Nothing from a participant's text became markup anywhere on the page.
async function assertNoInjection(page) {
  assert.equal(await page.evaluate(() => window.injected), undefined);
  assert.equal(await page.locator('main img').count(), 0);
  assert.equal(await page.locator('main script').count(), 0);
  assert.equal(await page.locator('#phase-rules b').count(), 0);
}

// A submission's row in the submissions table of `page`, in `phase`.
const rowOf = (page, name, phase) => page.locator(`#submissions-rows tr[data-name="${name}"]`)
    .filter({has: page.locator('td.phase', {hasText: new RegExp(`^${phase}$`)})});

// Waits (up to `seconds`) until the submission's state cell reads `state`; the page polls.
async function waitState(page, name, phase, state, seconds) {
  await rowOf(page, name, phase).locator(`td.state:text-is("${state}")`).waitFor({timeout: seconds * 1000});
}

async function feedbackStage() {
  const ops = await openPage();
  let code = '';
  await check('an organizer makes an invite code in the browser, shown once', async () => {
    await signIn(ops, ORGANIZER);
    await ops.waitForSelector('#registration-mode:has-text("invite_code")');
    await ops.fill('#invite-uses', '1');
    await ops.fill('#invite-note', 'green lab <b>x</b>');
    await ops.click('#invite-add');
    await ops.waitForSelector('#new-invite-value:has-text("bbo_invite_")');
    code = (await ops.textContent('#new-invite-value')).trim();
    await ops.waitForSelector('#invites-rows tr td:text-is("green lab <b>x</b>")');
    assert.equal(await ops.locator('#invites-rows b').count(), 0);
  });

  const green = await openPage();
  await check('a new team registers with the invite code; its token is shown once', async () => {
    await green.waitForSelector('#register:visible');
    assert.equal(await green.isVisible('#register-invite'), true);
    assert.equal(await green.isVisible('#register-terms'), true);
    assert.match(await green.textContent('#register-rule'), /invite code/);
    await green.fill('#register-team', 'green');
    await green.fill('#register-invite', 'bbo_invite_forged');
    await green.check('#register-terms');
    await green.click('#register-button');
    await green.waitForSelector('#register-message:has-text("Refused: invite_code")');
    await green.fill('#register-team', 'green');
    await green.fill('#register-invite', code);
    await green.check('#register-terms');
    await green.click('#register-button');
    await green.waitForSelector('#register-secret:has-text("bbo_team_")');
    const token = (await green.textContent('#register-secret')).trim();
    assert.match(await green.textContent('#register-result'), /shown once/);
    await shot(green, '20-registered-with-an-invite-code.png');
    // Used up: nobody else registers with it.
    const other = await openPage();
    await other.fill('#register-team', 'olive');
    await other.fill('#register-invite', code);
    await other.check('#register-terms');
    await other.click('#register-button');
    await other.waitForSelector('#register-message:has-text("used up")');
    await other.context().close();
    await signIn(green, token);
    assert.equal(await green.textContent('#who-name'), 'team green');
    assert.equal(await green.isVisible('#register'), false);
    assert.equal(await green.isVisible('#upload'), true);
  });

  await check('a team uploads a good archive and broken ones; the refusal says what bbo submit says', async () => {
    const upload = async (file, name) => {
      await green.setInputFiles('#upload-file', file);
      await green.fill('#upload-name', name);
      await green.click('#upload-button');
      await green.waitForFunction(() => /registered|Refused/.test(document.querySelector('#upload-message').textContent));
      return green.textContent('#upload-message');
    };
    assert.match(await upload(env('GOOD_ARCHIVE'), 'green-1'), /Submission green-1 registered .* in phase feedback/);
    const refused = await upload(env('EMPTY_ARCHIVE'), 'green-empty');
    assert.match(refused, /^Refused: /);
    assert.equal(await green.getAttribute('#upload-message', 'class'), 'error');
    const message = refused.replace(/^Refused: /, '');
    assert.ok(env('CLI_BROKEN_OUTPUT').includes(message), `page: ${message}\ncli: ${env('CLI_BROKEN_OUTPUT')}`);
    await shot(green, '21-upload-refused.png');
    assert.match(await upload(env('CRASH_ARCHIVE'), 'green-crash'), /Submission green-crash registered/);
  });

  await check('a submission\'s page: the check, best so far against random search, time per batch, rating', async () => {
    await waitState(green, 'green-1', 'feedback', 'finished', 60);
    await rowOf(green, 'green-1', 'feedback').locator('button.details-button').click();
    await green.waitForSelector('#submission-heading:has-text("green-1")');
    await green.waitForSelector('#curves svg');
    assert.ok(await green.locator('#curves svg [data-series="green-1"]').count() >= 1);
    assert.ok(await green.locator('#curves svg [data-series="random search"]').count() >= 1);
    assert.ok(await green.locator('#timing svg [data-series="median"]').count() >= 1);
    assert.match(await green.textContent('#timing svg .limit-label'), /budget 40 s/);
    assert.match(await green.textContent('#submission-rating'), /θ = 0\.\d{3} \[/);
    assert.match(await green.textContent('#submission-verdict'), /no study failed/);
    await green.locator('#submission-page').screenshot({path: path.join(ARTIFACTS, '22-submission-page.png')});
    await waitState(green, 'green-crash', 'feedback', 'failed', 60);
    await rowOf(green, 'green-crash', 'feedback').locator('button.details-button').click();
    await green.waitForSelector('#submission-heading:has-text("green-crash")');
    const verdict = await green.textContent('#submission-verdict');
    assert.match(verdict, /^FAILED: \d+ of \d+ studies did not complete/);
    assert.match(verdict, /In your files:/);
    assert.match(verdict, /SyntaxError/);
    await green.locator('#submission-page').screenshot({path: path.join(ARTIFACTS, '23-submission-page-failed.png')});
    assert.deepEqual(green.problems, []);
  });

  const red = await openPage();
  await check('a team chooses its finalist with the Choose button', async () => {
    await signIn(red, RED);
    const row = rowOf(red, 'red-feedback', 'feedback');
    await row.locator('button.choose-button').click();
    await red.waitForSelector('#action-message:has-text("goes on to phase final")');
    await red.waitForFunction(() => {
      const r = [...document.querySelectorAll('#submissions-rows tr[data-name="red-feedback"]')]
          .find((x) => x.querySelector('td.phase').textContent === 'feedback');
      return r && /^to final: /.test(r.querySelector('td.finalist').textContent);
    });
    assert.equal(await row.locator('button.choose-button').count(), 0);
    await shot(red, '24-team-chose-its-finalist.png');
    assert.deepEqual(red.problems, []);
    assert.deepEqual(ops.problems, []);
  });
}

async function finalStage() {
  await check('signed out: the landing page and the public boards, nothing hidden', async () => {
    const page = await openPage();
    await page.waitForSelector('#competition-title:has-text("Web 2026")');
    assert.match(await page.textContent('#competition-description'), /A test competition/);
    await page.click('#terms summary');
    assert.match(await page.textContent('#terms-text'), /Be fair\. <i>Not italic\.<\/i>/);
    assert.equal(await page.locator('#terms-text i').count(), 0);
    assert.equal(await page.locator('#calendar-rows tr').count(), 3);
    assert.match(await page.textContent('#calendar-rows tr[data-phase="final"]'), /hidden until published/);
    // The current phase is the final, hidden until published: no board, nothing of it.
    await page.waitForSelector('#board-message:has-text("hidden until the organizers publish")');
    assert.equal(await page.isVisible('#board-table'), false);
    // Practice's public board, readable without a token.
    await page.selectOption('#phase-select', 'practice');
    await page.waitForSelector('#board-rows td.name:text-is("blue-practice")');
    assert.ok(await page.locator('#board-rows details').count() > 0);  // per problem: public
    // Feedback is a hidden phase: overall scores only, no problem names.
    await page.selectOption('#phase-select', 'feedback');
    await page.waitForSelector('#board-rows td.name:text-is("blue-feedback")');
    assert.equal(await page.locator('#board-rows details').count(), 0);
    assert.doesNotMatch(await page.textContent('main'), /test_/);
    for (const id of ['#submissions', '#queue-section', '#organizer', '#organizer-actions']) {
      assert.equal(await page.isVisible(id), false, id);
    }
    await assertNoInjection(page);
    await shot(page, '00-public-page.png');
    await page.context().close();
  });

  await check('a bad token is refused with a clear message and shows nothing of its own', async () => {
    const page = await openPage();
    await page.fill('#token', 'bbo_team_not-a-real-token');
    await page.click('#sign-in-button');
    await page.waitForSelector('#sign-in-error:has-text("sign-in refused")');
    assert.equal(await page.isVisible('#submissions'), false);
    assert.equal(await page.isVisible('#who'), false);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await shot(page, '01-bad-token.png');
    await page.context().close();
  });

  const team = await openPage();
  await check('a team signs in; the token stays in sessionStorage, no cookie', async () => {
    await signIn(team, RED);
    assert.equal(await team.textContent('#who-name'), 'team red');
    assert.equal(await team.evaluate(() => sessionStorage.getItem('bbo-arena-token')), RED);
    assert.equal(await team.evaluate(() => document.cookie), '');
    assert.equal(await team.isVisible('#organizer'), false);
  });

  await check('a team is not shown the queue (organizers only)', async () => {
    assert.equal(await team.isVisible('#queue-section'), false);
    assert.equal(await team.locator('#queue dd').count(), 0);
  });

  await check('in the hidden final a team sees its own states only, no score or rank', async () => {
    assert.match(await team.textContent('#phase-title'), /Final — current phase/);
    assert.match(await team.textContent('#phase-deadline'), /Deadline 2026-03-15 00:00 UTC \((13 d 0 h 0|12 d 23 h \d+) min left\)/);
    assert.match(await team.textContent('#board-message'), /hidden until the organizers publish/);
    assert.equal(await team.isVisible('#board-table'), false);
    assert.equal(await team.textContent('#pl-note'), '');  // no ranking of a hidden board
    const rows = team.locator('#submissions-rows tr');
    assert.equal(await rows.count(), 4);  // practice, two in feedback, final: red's own
    const text = await team.textContent('#submissions');
    assert.doesNotMatch(text, /blue/);
    assert.doesNotMatch(await team.textContent('#submissions-head'), /Team/);
    const final = team.locator('#submissions-rows tr').filter({has: team.locator('td.phase', {hasText: /^final$/})});
    assert.equal(await final.locator('td.state').textContent(), 'finished');
    assert.equal(await final.locator('td.score').textContent(), 'hidden');
    // The feedback submission that went on to the final says so.
    const feedback = team.locator('#submissions-rows tr[data-name="red-feedback"]').filter({has: team.locator('td.phase', {hasText: /^feedback$/})});
    assert.match(await feedback.locator('td.finalist').textContent(), /^to final: /);
    // Its log names the hidden problems "problem-K".
    await final.locator('button.log-button').click();
    await team.waitForSelector('td.log details');
    await team.click('td.log details summary');
    assert.match(await team.textContent('td.log'), /problem-1/);
    assert.doesNotMatch(await team.textContent('td.log'), /test_crashing/);
    await assertNoInjection(team);
    await shot(team, '02-team-final-hidden.png');
    await final.locator('button.log-button').click();  // closes it
  });

  await check('the page refreshes itself ("updated hh:mm:ss")', async () => {
    const before = await team.textContent('#updated');
    assert.match(before, /^updated \d\d:\d\d:\d\d$/);
    await team.waitForFunction((b) => document.querySelector('#updated').textContent !== b,
        before, {timeout: 9000});
  });

  await check('practice: the public board; markup in names and errors stays text', async () => {
    await team.selectOption('#phase-select', 'practice');
    await team.waitForSelector('#board-rows td.name:text-is("blue-practice")');
    assert.match(await team.textContent('#phase-rules'), /Try things out\. <b>Not bold\.<\/b>/);
    const names = await team.locator('#board-rows td.name').allTextContents();
    assert.ok(names.includes(HTML_NAME), `board names: ${names}`);
    assert.ok(names.includes('blue-practice'), `board names: ${names}`);
    assert.ok(names.includes('random-search-baseline'));
    assert.ok(await team.locator('#board-rows details').count() > 0);  // per-problem scores
    const row = team.locator(`#submissions-rows tr[data-name="${HTML_NAME.replace(/"/g, '\\"')}"]`);
    assert.equal(await row.locator('td.name').textContent(), HTML_NAME);
    assert.match(await row.locator('td.score').textContent(), /^-?\d+\.\d\d$/);
    await row.locator('button.log-button').click();
    await team.waitForSelector('ul.errors li');
    assert.match(await team.textContent('ul.errors'), /<script>window\.injected=2<\/script>/);
    // An open log stays open across a refresh.
    const before = await team.textContent('#updated');
    await team.waitForFunction((b) => document.querySelector('#updated').textContent !== b,
        before, {timeout: 9000});
    assert.equal(await team.locator('ul.errors li').count(), 1);
    await assertNoInjection(team);
    await shot(team, '03-team-practice.png');
  });

  await check('practice: the Plackett-Luce column shows θ with its band and marks the Pareto set', async () => {
    assert.equal(await team.locator('#board-table th.pl').first().isVisible(), true);
    const thetas = team.locator('#board-rows td[data-pl="theta"]');
    assert.equal(await thetas.count(), 2);  // the two submissions; the baseline is not ranked
    for (const text of await thetas.allTextContents()) {
      assert.match(text, /^0\.\d{3} \[0\.\d{3}, [01]\.\d{3}\]$/);
    }
    assert.equal(await thetas.first().isVisible(), true);
    assert.ok(await team.locator('#board-rows td[data-pl="theta"] .pl-band').count() === 2);
    const members = team.locator('#board-rows td.pareto');
    assert.ok(await members.count() >= 1);
    assert.equal(await members.first().textContent(), '★ member');
    const note = await team.textContent('#pl-note');
    assert.match(note, /Plackett-Luce/);
    assert.match(note, /Pareto-Optimal Anytime Algorithms via Bayesian Racing/);
    assert.equal(await team.isVisible('#pl-note'), true);
    await team.locator('#leaderboard').screenshot({path: path.join(ARTIFACTS, '03b-team-practice-plackett-luce.png')});
  });

  const organizer = await openPage();
  await check('an organizer sees the live final board, every team, the queue and workers', async () => {
    await signIn(organizer, ORGANIZER);
    assert.equal(await organizer.textContent('#who-name'), 'organizer');
    await organizer.waitForSelector('#board-table:visible');
    const names = await organizer.locator('#board-rows td.name').allTextContents();
    assert.ok(names.includes('red-feedback') && names.includes('blue-feedback'), `${names}`);
    assert.ok(await organizer.locator('#board-rows details').count() > 0);  // per problem
    assert.match(await organizer.textContent('#submissions-head'), /Team/);
    const teams = await organizer.locator('#submissions-rows tr td:nth-child(3)').allTextContents();
    assert.ok(teams.includes('red') && teams.includes('blue'), `${teams}`);
    assert.equal(await organizer.textContent('#submissions-title'), 'All submissions');
    await organizer.waitForSelector('#queue dd');
    assert.ok(Number(await organizer.textContent('#queue dd[data-key="Workers connected"]')) >= 1);
    assert.equal(await organizer.textContent('#queue dd[data-key="Jobs queued"]'), '0');
  });

  await check('a crashed latest submission is not a team\'s finalist: its working one went on', async () => {
    const crash = organizer.locator('#submissions-rows tr[data-name="blue-crash"]');
    assert.equal(await crash.locator('td.state').textContent(), 'failed');
    assert.equal(await crash.locator('td.finalist').textContent(), '');
    const entry = organizer.locator('#submissions-rows tr[data-name="blue-feedback"]')
        .filter({has: organizer.locator('td.phase', {hasText: /^feedback$/})});
    assert.match(await entry.locator('td.finalist').textContent(), /^to final: /);
    const finals = await organizer.locator('#submissions-rows tr')
        .filter({has: organizer.locator('td.phase', {hasText: /^final$/})})
        .locator('td.name').allTextContents();
    assert.ok(finals.includes('blue-feedback') && !finals.includes('blue-crash'), `${finals}`);
  });

  await check('an organizer opens the full scoring report in a sandboxed frame', async () => {
    await organizer.click('#load-report');
    await organizer.waitForSelector('#report:visible', {timeout: 30000});
    assert.equal(await organizer.getAttribute('#report', 'sandbox'), '');
    const frame = organizer.frameLocator('#report');
    await frame.locator('h2').first().waitFor();
    assert.ok(await frame.locator('section').count() > 1);
    const pl = frame.locator('section#plackett-luce');
    assert.match(await pl.locator('h2').textContent(), /Bayesian ranking over time \(Plackett-Luce\)/);
    assert.equal(await pl.locator('svg polygon').count(), 3);  // one credible band per submission
    assert.ok(await pl.locator('#pareto-table tr.pareto').count() >= 1);
    assert.equal(await organizer.isVisible('#download-report'), true);
    await assertNoInjection(organizer);
    assert.deepEqual(organizer.problems, []);
    await shot(organizer, '04-organizer-final.png');
    await organizer.locator('#report').screenshot({path: path.join(ARTIFACTS, '05-organizer-report.png')});
  });

  await check('an organizer publishes the final board with its button, withdraws it with a reason, publishes again', async () => {
    await organizer.selectOption('#phase-select', 'final');
    await organizer.click('#publish-button');
    await organizer.waitForSelector('#action-message:has-text("Published the board of phase final")');
    organizer.once('dialog', (d) => d.accept('a scoring bug; fixed within the hour'));
    await organizer.click('#unpublish-button');
    await organizer.waitForSelector('#action-message:has-text("hidden again")');
    await team.selectOption('#phase-select', 'final');
    await team.waitForSelector('#board-message:has-text("a scoring bug; fixed within the hour")', {timeout: 12000});
    assert.equal(await team.isVisible('#board-table'), false);
    await shot(team, '07-team-final-publication-withdrawn.png');
    await organizer.click('#publish-button');
    await organizer.waitForSelector('#events-rows tr[data-kind="unpublished"]');
  });

  await check('once published, the team sees the final board and its score', async () => {
    await team.selectOption('#phase-select', 'final');
    await team.waitForSelector('#board-rows td.name:text-is("red-feedback")', {timeout: 12000});
    assert.match(await team.textContent('#phase-board-state'), /The board is published/);
    const names = await team.locator('#board-rows td.name').allTextContents();
    assert.ok(names.includes('red-feedback') && names.includes('blue-feedback'), `${names}`);
    assert.equal(await team.locator('#board-rows details').count(), 0);  // hidden problems
    assert.equal(await team.locator('#board-rows td[data-pl="theta"]').count(), 3);
    const final = team.locator('#submissions-rows tr').filter({has: team.locator('td.phase', {hasText: /^final$/})});
    assert.match(await final.locator('td.score').textContent(), /^-?\d+\.\d\d$/);
    await assertNoInjection(team);
    assert.deepEqual(team.problems, []);
    await shot(team, '06-team-final-published.png');
  });

  // Organizer actions in the browser, each with a reason the teams see; a team's own buttons.
  const ops = await openPage();
  await check('an organizer hides a submission; its team and the organizers see why, others that it was removed; then puts it back', async () => {
    await signIn(ops, ORGANIZER);
    await ops.selectOption('#phase-select', 'feedback');
    await ops.waitForSelector('#board-rows td.name:text-is("blue-feedback")');
    ops.once('dialog', (d) => d.accept('copied from another team'));
    await rowOf(ops, 'blue-feedback', 'feedback').locator('button.hide-button').click();
    await ops.waitForSelector('#action-message:has-text("off the board")');
    await ops.waitForSelector('#removed li:has-text("hidden by organizer ops: copied from another team")');
    await team.selectOption('#phase-select', 'feedback');
    // Another team (red) reads that the organizers removed it, not their reason (issue 34, 9).
    await team.waitForSelector('#removed li:has-text("removed by the organizers")', {timeout: 12000});
    assert.equal(await team.locator('#removed li:has-text("copied from another team")').count(), 0);
    assert.equal(await team.locator('button.hide-button').count(), 0);  // not a team's button
    await shot(ops, '09-organizer-hid-a-submission.png');
    ops.once('dialog', (d) => d.accept('reviewed: independent work'));
    await rowOf(ops, 'blue-feedback', 'feedback').locator('button.unhide-button').click();
    await ops.waitForSelector('#action-message:has-text("back on the board")');
    await ops.waitForSelector('#events-rows tr[data-kind="unhidden"]');
  });

  await check('an organizer disqualifies and requalifies a team, each recorded', async () => {
    await ops.fill('#team-name', 'blue');
    ops.once('dialog', (d) => d.accept('two accounts'));
    await ops.click('#disqualify-button');
    await ops.waitForSelector('#removed li:has-text("team disqualified by organizer ops: two accounts")');
    await ops.waitForSelector('#events-rows tr[data-kind="disqualified"]');
    ops.once('dialog', (d) => d.accept('appeal granted'));
    await ops.click('#requalify-button');
    await ops.waitForSelector('#events-rows tr[data-kind="requalified"]');
    await ops.waitForFunction(() => !document.querySelector('#removed'));
  });

  await check('an organizer replaces a team\'s final entry; the team sees who and why', async () => {
    ops.once('dialog', (d) => d.accept('asked by the team after the deadline'));
    await rowOf(ops, 'red-feedback-2', 'feedback').locator('button.finalist-button').click();
    await ops.waitForSelector('#action-message:has-text("entry in phase final")');
    await team.waitForSelector(
        '#submissions-rows tr[data-name="red-feedback-2"] td.finalist:has-text("set by organizer ops")',
        {timeout: 12000});
    // Its old entry in the final is withdrawn, with the reason.
    await ops.waitForSelector('#submissions-rows tr[data-name="red-feedback"] td.state-withdrawn');
    // Refused actions say why on the page.
    ops.once('dialog', (d) => d.accept('again'));
    await rowOf(ops, 'red-feedback-2', 'feedback').locator('button.finalist-button').click();
    await ops.waitForSelector('#action-message:has-text("Refused: ")');
    await shot(ops, '10-organizer-replaced-a-finalist.png');
  });

  await check('an organizer issues a token once, then revokes it; the audit log shows it all', async () => {
    await ops.fill('#token-owner', 'teal');
    await ops.click('#token-add');
    await ops.waitForSelector('#new-token-value:has-text("bbo_team_")');
    await ops.waitForSelector('#tokens-rows tr[data-owner="teal"]');
    const first = await ops.textContent('#new-token-value');
    await ops.locator('#tokens-rows tr[data-owner="teal"] button.rotate-button').click();
    await ops.waitForFunction((f) => /bbo_team_/.test(document.querySelector('#new-token-value').textContent) &&
        document.querySelector('#new-token-value').textContent !== f, first);
    ops.once('dialog', (d) => d.accept());
    await ops.locator('#tokens-rows tr[data-owner="teal"] button.revoke-button').click();
    await ops.waitForFunction(() => {
      const r = document.querySelector('#tokens-rows tr[data-owner="teal"]');
      return r && r.children[3].textContent !== '';
    });
    for (const action of ['admin:hide', 'admin:disqualify', 'admin:finalist', 'admin:team add',
      'admin:team rotate', 'admin:publish', 'admin:unpublish']) {
      await ops.waitForSelector(`#audit-rows td:text-is("${action}")`);
    }
    await assertNoInjection(ops);
    await shot(ops, '11-organizer-tokens-and-audit.png');
  });

  await check('an organizer requeues a job lost to the platform and revokes an invite code', async () => {
    await ops.waitForSelector('#jobs-rows tr');
    const lost = await ops.locator('#jobs-rows tr').count();
    assert.ok(lost >= 1);
    await ops.locator('#jobs-rows tr button.requeue-button').first().click();
    await ops.waitForSelector('#action-message:has-text("1 job(s) back in the queue")');
    await ops.waitForSelector('#invites-rows tr button.invite-revoke-button');
    await ops.locator('#invites-rows tr button.invite-revoke-button').first().click();
    await ops.waitForSelector('#action-message:has-text("revoked")');
    await ops.waitForFunction(() => [...document.querySelectorAll('#invites-rows tr')]
        .every((r) => r.children[5].textContent !== ''));
    await shot(ops, '12-organizer-requeue-and-invites.png');
  });

  await check('an organizer withdraws a submission with its button', async () => {
    await ops.selectOption('#phase-select', 'feedback');
    const row = rowOf(ops, 'red-feedback-2', 'feedback');
    ops.once('dialog', (d) => d.accept());
    await row.locator('button.withdraw-button').click();
    await ops.waitForSelector('#action-message:has-text("Withdrew red-feedback-2")');
  });

  await check('a team withdraws its own submission with a button', async () => {
    await team.selectOption('#phase-select', 'practice');
    const row = team.locator('#submissions-rows tr').filter({has: team.locator('td.phase', {hasText: /^practice$/})});
    team.once('dialog', (d) => d.accept());
    await row.locator('button.withdraw-button').click();
    await team.waitForSelector('#action-message:has-text("Withdrew")');
    await team.waitForFunction(() => [...document.querySelectorAll('#submissions-rows tr')]
        .some((r) => r.querySelector('td.phase') && r.querySelector('td.phase').textContent === 'practice' &&
                     r.querySelector('td.state').textContent === 'withdrawn'));
    assert.deepEqual(team.problems, []);
    assert.deepEqual(ops.problems, []);
  });

  await check('signing out forgets the token', async () => {
    await team.click('#sign-out');
    await team.waitForSelector('#sign-in:visible');
    assert.equal(await team.evaluate(() => sessionStorage.length), 0);
  });
}

try {
  if (STAGE === 'feedback') await feedbackStage();
  else await finalStage();
} finally {
  await browser.close();
}
console.log(`\nscreenshots in ${ARTIFACTS}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
