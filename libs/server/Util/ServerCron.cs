// ServerCron: the server's periodic work (housekeeping, active expiry, the stream-spill poll, compaction ticks, the disk-space
// check, save rules) on one thread of its own, as Redis runs serverCron from its event loop. A System.Threading.Timer per
// job cost a wake-up of .NET's timer thread and then of two or three thread-pool workers per firing: about 300 context
// switches a second in an idle server. The cron wakes once per due time, and jobs whose periods divide each other run in
// the same wake-up (docs/performance.md, "Periodic work on one thread").
// Invariants:
//  - Jobs run one at a time, on the cron thread. A run that takes long delays the others, so a job with long work starts a
//    task and returns.
//  - A job is due at the multiples of its period (of a monotonic clock), so jobs whose periods divide each other are
//    due in the same wake-up. The period is read at each check, so a changed period applies at once; a job that fell a
//    whole period behind skips the runs it missed instead of running them in a burst.
//  - A job that throws is logged and runs again when next due.
//  - Disposing a job's handle removes it and waits for its run in progress (unless called from that run); it never runs
//    after. Dispose of the cron does the same for every job and ends the thread.
using System.Diagnostics;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Util;

public sealed class ServerCron : IDisposable
{
    private readonly ILogger? _logger;
    private readonly object _lock = new();
    private readonly List<Job> _jobs = new();
    private readonly Thread _thread;
    private Job? _running;
    private bool _stopping;

    public ServerCron(ILogger? logger)
    {
        _logger = logger;
        _thread = new Thread(Loop) { IsBackground = true, Name = "garnet-cron" };
        _thread.Start();
    }

    /// <summary>Wake-ups of the cron thread that ran at least one job (tests).</summary>
    public long Wakeups { get; private set; }

    /// <summary>Runs job every period (first at the next multiple of it) until the returned handle is disposed.</summary>
    public IDisposable Every(string name, TimeSpan period, Action job) => Every(name, () => period, job);

    /// <summary>As Every, with a period read before each run (a setting tests or CONFIG SET change).</summary>
    public IDisposable Every(string name, Func<TimeSpan> period, Action job)
    {
        var j = new Job(this, name, period, job);
        lock (_lock)
        {
            j.LastDueMs = OnGrid(NowMs, PeriodMs(j));
            if (!_stopping) _jobs.Add(j);
            Monitor.PulseAll(_lock);
        }
        return j;
    }

    // Not Environment.TickCount64: on Linux it is the coarse clock (4 ms steps), so a wait that ends on time could find the
    // job not yet due and wait again.
    // (Divided, not multiplied first: ticks * 1000 overflows after 106 days of uptime at 1 GHz ticks.)
    private static readonly long s_ticksPerMs = Math.Max(1, Stopwatch.Frequency / 1000);
    private static long NowMs => Stopwatch.GetTimestamp() / s_ticksPerMs;

    private static long PeriodMs(Job j) => Math.Max(1, (long)j.Period().TotalMilliseconds);

    // Due times are multiples of the period (of the clock), so jobs whose periods divide each other are due together.
    private static long OnGrid(long ms, long period) => ms - ms % period;

    private void Loop()
    {
        Monitor.Enter(_lock);
        try
        {
            bool ranAny = false;
            while (!_stopping)
            {
                long now = NowMs, next = long.MaxValue;
                Job? due = null;
                foreach (var j in _jobs)
                {
                    long at = j.LastDueMs + PeriodMs(j);
                    if (at <= now) { due = j; break; }
                    next = Math.Min(next, at);
                }
                if (due is null)
                {
                    if (ranAny) Wakeups++;
                    ranAny = false;
                    Monitor.Wait(_lock, next == long.MaxValue ? Timeout.Infinite : (int)Math.Min(next - now, int.MaxValue));
                    continue;
                }
                ranAny = true;
                _running = due;
                Monitor.Exit(_lock);
                try
                {
                    FaultPoints.Hit("cron:" + due.Name); // test seam
                    due.Run();
                }
                catch (Exception ex) { _logger?.LogError(ex, "Periodic job {Job} failed", due.Name); }
                finally { Monitor.Enter(_lock); }
                _running = null;
                long period = PeriodMs(due), after = NowMs;
                due.LastDueMs += period;
                if (due.LastDueMs + period <= after) due.LastDueMs = OnGrid(after, period); // a period behind: no burst of catch-up runs
                Monitor.PulseAll(_lock); // a Remove waiting for this run
            }
        }
        finally { Monitor.Exit(_lock); }
    }

    private void Remove(Job job)
    {
        lock (_lock)
        {
            _jobs.Remove(job);
            while (_running == job && Thread.CurrentThread != _thread) Monitor.Wait(_lock);
        }
    }

    public void Dispose()
    {
        lock (_lock)
        {
            if (_stopping) return;
            _stopping = true;
            _jobs.Clear();
            Monitor.PulseAll(_lock);
        }
        if (Thread.CurrentThread != _thread) _thread.Join();
    }

    private sealed class Job(ServerCron owner, string name, Func<TimeSpan> period, Action run) : IDisposable
    {
        public readonly string Name = name;
        public readonly Func<TimeSpan> Period = period;
        public readonly Action Run = run;
        public long LastDueMs;
        public void Dispose() => owner.Remove(this);
    }
}
