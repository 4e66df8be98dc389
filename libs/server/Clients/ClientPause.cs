// ClientPause: CLIENT PAUSE / UNPAUSE. While a pause is on, the commands it holds (ALL: every command; WRITE: those
// flagged write or may_replicate, and an EXEC whose queue has one) wait before they run, as Redis's blockPostponeClient.
// Invariants:
//  - A held client's request stays unconsumed and its connection awaits WhenReleased without a thread (as ReadAhead);
//    it is checked again when released, so a new pause started meanwhile holds it again.
//  - The pause ends at UNPAUSE or when its time is up (a timer), whichever is first; a second PAUSE keeps the later end
//    and the stricter mode (ALL over WRITE), as Redis 7.2's pauseActions does for one purpose.
//  - Monitors (Redis's replicas) are never held; with no pause, Holds costs one volatile read.
using Garnet.server.Commands;

namespace Garnet.server.Clients;

public sealed class ClientPause : IDisposable
{
    public const int None = 0, Write = 1, All = 2;

    private readonly object _lock = new();
    private int _mode;
    private long _endMs;
    private TaskCompletionSource _released = NewSource();
    private Timer? _timer;

    private const long MaxDue = 0xfffffffe; // the timer's longest wait (about 49 days): it re-arms until the end

    private static TaskCompletionSource NewSource() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>None, Write or All.</summary>
    public int Mode => Volatile.Read(ref _mode);

    /// <summary>When the pause ends (Environment.TickCount64), 0 without one.</summary>
    public long EndMs => Volatile.Read(ref _endMs);

    /// <summary>Whether cmd must wait now; execWrites says whether an EXEC's queue holds a write (asked only then).</summary>
    public bool Holds(CommandDefinition cmd, Func<bool> execWrites)
    {
        int mode = Volatile.Read(ref _mode);
        if (mode == None) return false;
        if (mode == All) return true;
        if ((cmd.Flags & (CommandFlags.Write | CommandFlags.MayReplicate)) != 0) return true;
        return cmd.RunsQueuedCommands && execWrites();
    }

    /// <summary>Completes when the pause in force now ends.</summary>
    public Task WhenReleased()
    {
        lock (_lock) return _mode == None ? Task.CompletedTask : _released.Task;
    }

    public void Pause(long milliseconds, bool all)
    {
        lock (_lock)
        {
            long end = Environment.TickCount64 + milliseconds;
            if (_mode == None || end > _endMs) _endMs = end;
            _mode = Math.Max(_mode, all ? All : Write);
            _timer ??= new Timer(_ => Expire());
            long due = Math.Max(0, _endMs - Environment.TickCount64);
            _timer.Change(Math.Min(due, MaxDue), (long)Timeout.Infinite);
        }
    }

    public void Unpause()
    {
        TaskCompletionSource released;
        lock (_lock)
        {
            if (_mode == None) return;
            _mode = None;
            _endMs = 0;
            _timer?.Change(Timeout.Infinite, (long)Timeout.Infinite);
            released = _released;
            _released = NewSource();
        }
        released.TrySetResult();
    }

    // A timer callback: an exception escaping it would end the process. On a failure the pause ends (clients held
    // forever would be worse than a pause cut short), and the failure is logged.
    private void Expire()
    {
        try
        {
            Garnet.common.Util.FaultPoints.Hit("client-pause-timer"); // test seam
            lock (_lock)
            {
                if (_mode == None) return;
                long left = _endMs - Environment.TickCount64;
                if (left > 0)
                {
                    _timer?.Change(Math.Min(left, MaxDue), (long)Timeout.Infinite);
                    return;
                }
            }
        }
        catch (Exception ex) { Garnet.common.Util.FaultPoints.Report("the CLIENT PAUSE timer", ex); }
        try { Unpause(); }
        catch (Exception ex) { Garnet.common.Util.FaultPoints.Report("the CLIENT PAUSE timer", ex); }
    }

    public void Dispose()
    {
        _timer?.Dispose();
        Unpause();
    }
}
