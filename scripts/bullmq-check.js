// bullmq-check.js: BullMQ's producer, worker and QueueEvents against one server, run by scripts/bullmq-check.sh.
// Invariants: every check has its own queue name (no check sees another's jobs); every wait has a deadline, so a server
// that never delivers makes the check fail, not hang; the process exits 0 only when every check passed, and prints one
// line per check plus a summary. Usage: NODE_PATH=<dir>/node_modules node bullmq-check.js <port>
'use strict';
const { Queue, Worker, QueueEvents } = require('bullmq');
const Redis = require('ioredis');

const port = Number(process.argv[2] || 6379);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const prefix = 'bullcheck' + Date.now();
const closers = [];
const results = [];

function sleep(ms) { return new Promise(r => setTimeout(r, ms)); }

async function until(what, cond, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(50);
  }
  throw new Error('timed out waiting for ' + what);
}

function check(cond, msg) { if (!cond) throw new Error(msg); }

async function open(name, processor, workerOpts = {}) {
  const queue = new Queue(name, { connection, prefix });
  // From the start of the queue's events stream, not '$': with '$', QueueEvents re-reads from '$' after each empty
  // blocking read until its first event, so an event added between a read's timeout and the next read is never seen
  // (with Redis too); the checks count every event of their own fresh queue.
  const events = new QueueEvents(name, { connection, prefix, blockingTimeout: 200, lastEventId: '0-0' });
  const seen = { completed: [], failed: [], delayed: [], added: [] };
  events.on('completed', e => seen.completed.push(e));
  events.on('failed', e => seen.failed.push(e));
  events.on('delayed', e => seen.delayed.push(e));
  events.on('added', e => seen.added.push(e));
  closers.push(() => queue.close(), () => events.close());
  await events.waitUntilReady();
  await queue.waitUntilReady();
  let worker = null;
  if (processor) {
    worker = new Worker(name, processor, { connection, prefix, drainDelay: 1, ...workerOpts });
    closers.push(() => worker.close());
    worker.on('error', err => console.error(`  worker error (${name}): ${err.message}`));
    await worker.waitUntilReady();
  }
  return { queue, events, seen, worker };
}

const checks = {
  // Jobs added in bulk and one by one are all processed, with their return values stored and announced as events.
  async complete() {
    const { queue, seen } = await open('complete', async job => ({ doubled: job.data.n * 2 }), { concurrency: 4 });
    const jobs = await queue.addBulk(Array.from({ length: 20 }, (_, n) => ({ name: 'double', data: { n } })));
    jobs.push(await queue.add('double', { n: 100 }));
    await until('21 completed events', () => seen.completed.length >= 21, 15000);
    for (const j of jobs) {
      const back = await queue.getJob(j.id);
      check(back && back.returnvalue && back.returnvalue.doubled === j.data.n * 2, `job ${j.id} return value ${JSON.stringify(back && back.returnvalue)}`);
      check((await back.getState()) === 'completed', `job ${j.id} state ${await back.getState()}`);
    }
    const counts = await queue.getJobCounts('completed', 'wait', 'active', 'failed');
    check(counts.completed === 21 && counts.wait === 0 && counts.active === 0 && counts.failed === 0, 'counts ' + JSON.stringify(counts));
    check(seen.added.length >= 21, `added events ${seen.added.length}`);
    return `21 jobs completed, ${seen.completed.length} completed events`;
  },

  // A job that throws twice is retried with a fixed backoff and completes on its third attempt; a job that always
  // throws ends failed after its attempts, and QueueEvents reports the failure with its reason.
  async retry() {
    const attemptsAt = {};
    const { queue, seen } = await open('retry', async job => {
      (attemptsAt[job.id] = attemptsAt[job.id] || []).push(Date.now());
      if (job.data.always || job.attemptsMade < 2) throw new Error('boom ' + job.attemptsMade);
      return 'ok after ' + job.attemptsMade;
    });
    const flaky = await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 300 } });
    const doomed = await queue.add('doomed', { always: true }, { attempts: 2, backoff: { type: 'exponential', delay: 100 } });
    await until('flaky completed and doomed failed',
      () => seen.completed.some(e => e.jobId === flaky.id) && seen.failed.some(e => e.jobId === doomed.id), 15000);
    const f = await queue.getJob(flaky.id);
    check(f.attemptsMade === 3 && f.returnvalue === 'ok after 2', `flaky attemptsMade ${f.attemptsMade} returnvalue ${f.returnvalue}`);
    const t = attemptsAt[flaky.id];
    check(t.length === 3 && t[1] - t[0] >= 280 && t[2] - t[1] >= 280, 'flaky attempt gaps ' + t.map(x => x - t[0]).join(','));
    const d = await queue.getJob(doomed.id);
    check((await d.getState()) === 'failed' && d.attemptsMade === 2 && d.failedReason === 'boom 1', `doomed state ${await d.getState()} attempts ${d.attemptsMade} reason ${d.failedReason}`);
    const failedEvent = seen.failed.find(e => e.jobId === doomed.id);
    check(failedEvent.failedReason === 'boom 1', 'failed event reason ' + failedEvent.failedReason);
    // the backoff between attempts moves the job to the delayed set, which is announced on the events stream
    check(seen.delayed.some(e => e.jobId === flaky.id), 'no delayed event for the backoff of ' + flaky.id);
    return `flaky job completed on attempt 3 (gaps ${t[1] - t[0]} and ${t[2] - t[1]} ms), doomed job failed after 2 attempts`;
  },

  // A job added with a delay is not processed before the delay and is processed soon after it.
  async delayed() {
    const ran = {};
    const { queue, seen } = await open('delayed', async job => { ran[job.id] = Date.now(); return 'late'; });
    const added = Date.now();
    const job = await queue.add('later', {}, { delay: 1500 });
    check((await job.getState()) === 'delayed', 'state right after add: ' + await job.getState());
    await sleep(700);
    check(!ran[job.id], 'delayed job ran after ' + (ran[job.id] - added) + ' ms');
    await until('delayed job completed', () => seen.completed.some(e => e.jobId === job.id), 10000);
    const waited = ran[job.id] - added;
    check(waited >= 1450 && waited < 5000, 'delayed job ran after ' + waited + ' ms');
    return `1500 ms delayed job ran after ${waited} ms`;
  },

  // A job scheduler (BullMQ's repeatable jobs) produces a job every 400 ms until it is removed; one with a limit stops
  // after that many jobs.
  async repeatable() {
    const runs = { every: [], limited: [] };
    const { queue } = await open('repeat', async job => { runs[job.name].push(Date.now()); });
    await queue.upsertJobScheduler('sched-every', { every: 400 }, { name: 'every', data: {} });
    await queue.upsertJobScheduler('sched-limited', { every: 300, limit: 3 }, { name: 'limited', data: {} });
    await until('3 runs of the job scheduler and 3 of the limited repeat', () => runs.every.length >= 3 && runs.limited.length >= 3, 15000);
    const schedulers = await queue.getJobSchedulers();
    check(schedulers.some(s => s.key === 'sched-every' || s.id === 'sched-every'), 'job schedulers ' + JSON.stringify(schedulers));
    check(await queue.removeJobScheduler('sched-every'), 'removeJobScheduler returned false');
    await sleep(1200);
    check(runs.limited.length === 3, 'limited scheduler ran ' + runs.limited.length + ' times');
    const afterRemove = runs.every.length;
    await sleep(900);
    check(runs.every.length === afterRemove, `job scheduler ran ${runs.every.length - afterRemove} times after its removal`);
    const gaps = runs.every.slice(1, 3).map((t, i) => t - runs.every[i]);
    check(gaps.every(g => g >= 250), 'job scheduler gaps ' + gaps.join(','));
    return `job scheduler ran ${afterRemove} times (gaps ${gaps.join(', ')} ms), limited scheduler ran 3 times`;
  },

  // Jobs waiting with priorities are taken lowest priority number first (one worker, concurrency 1, started after the
  // adds), and the events stream of a queue with a maxLenEvents of 20 is trimmed (XADD MAXLEN ~) as it grows.
  async priorityAndTrim() {
    const order = [];
    const { queue } = await open('prio', null);
    await queue.add('p5', {}, { priority: 5 });
    await queue.add('p1', {}, { priority: 1 });
    await queue.add('p3', {}, { priority: 3 });
    await queue.add('p0', {});
    const worker = new Worker('prio', async job => { order.push(job.name); }, { connection, prefix, concurrency: 1 });
    closers.push(() => worker.close());
    await until('4 prioritized jobs', () => order.length >= 4, 10000);
    check(order.join(',') === 'p0,p1,p3,p5', 'processing order ' + order.join(','));

    const raw = new Redis(connection);
    closers.push(() => raw.quit());
    // what Queue's streams.events.maxLen option stores; the scripts read it before each XADD
    await raw.hset(`${prefix}:trim:meta`, 'opts.maxLenEvents', 20);
    const trimmed = new Queue('trim', { connection, prefix });
    closers.push(() => trimmed.close());
    await trimmed.addBulk(Array.from({ length: 600 }, (_, n) => ({ name: 't', data: { n } })));
    const len = await raw.xlen(`${prefix}:trim:events`);
    check(len >= 20 && len < 600, 'events stream of 600 adds with maxLen 20 holds ' + len + ' entries');
    return `priority order ${order.join(',')}, events stream trimmed to ${len} entries after 600 adds`;
  },

  // Events read through the stream with XREAD from a new QueueEvents see what happened before it (lastEventId 0), and
  // progress updates reach a listener.
  async events() {
    const { queue, seen } = await open('events', async job => { await job.updateProgress(50); return 'done'; });
    const progress = [];
    const late = new QueueEvents('events', { connection, prefix, lastEventId: '0-0', blockingTimeout: 200 });
    closers.push(() => late.close());
    const lateCompleted = [];
    late.on('completed', e => lateCompleted.push(e.jobId));
    const listener = new QueueEvents('events', { connection, prefix, blockingTimeout: 200 });
    closers.push(() => listener.close());
    listener.on('progress', e => progress.push(e));
    await listener.waitUntilReady();
    const job = await queue.add('p', {});
    await until('completed event', () => seen.completed.some(e => e.jobId === job.id), 10000);
    await until('progress event', () => progress.some(e => e.jobId === job.id && e.data === 50), 5000);
    await late.waitUntilReady();
    await until('replayed completed event', () => lateCompleted.includes(job.id), 5000);
    const raw = new Redis(connection);
    closers.push(() => raw.quit());
    const len = await raw.xlen(`${prefix}:events:events`);
    check(len > 0, 'events stream length ' + len);
    return `progress and completed events delivered, events stream holds ${len} entries`;
  },
};

async function main() {
  const only = process.env.BULLMQ_CHECKS ? process.env.BULLMQ_CHECKS.split(',') : Object.keys(checks);
  for (const name of only) {
    const start = Date.now();
    try {
      const detail = await checks[name]();
      results.push({ name, ok: true });
      console.log(`PASS ${name} (${Date.now() - start} ms): ${detail}`);
    } catch (err) {
      results.push({ name, ok: false });
      console.log(`FAIL ${name} (${Date.now() - start} ms): ${err && err.stack || err}`);
    }
  }
  await Promise.race([Promise.allSettled(closers.reverse().map(c => c())), sleep(5000)]);
  const failed = results.filter(r => !r.ok).map(r => r.name);
  console.log(`bullmq: ${results.length - failed.length}/${results.length} checks passed` + (failed.length ? ', failed: ' + failed.join(', ') : ''));
  process.exit(failed.length ? 1 : 0);
}

const watchdog = setTimeout(() => { console.log('FAIL: the whole run took more than 120 s'); process.exit(1); }, 120000);
watchdog.unref();
main().catch(err => { console.log('FAIL: ' + (err && err.stack || err)); process.exit(1); });
