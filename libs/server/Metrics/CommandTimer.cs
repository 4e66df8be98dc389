// CommandTimer: the clock readings behind each command's time (commandstats usec, latencystats, SLOWLOG, LATENCY) for
// one session. A clock reading costs about as much as a whole in-memory GET, so back-to-back fast commands of one batch
// share them.
// Invariants:
//  - A command's time runs from the reading before it (the end of the command before it in the batch, so its parsing
//    and dispatch count as its own) to the reading after it.
//  - Commands flagged fast (Redis's @fast: O(1) or O(log N)) that answer with less than SmallReply bytes and finish in
//    place are grouped: up to GroupSize of them run between two readings and are each charged an even share. A group is
//    closed (one reading) when it is full, when a command that cannot join it ends or is about to start, and when the
//    batch ends (Flush). Exactly one call counted per command either way; totals stay exact, per-call times in a group
//    are its average. A group is kept as runs of one command (a pipeline of GETs is one run: one add per group).
//  - A fast command that turns out big (a large reply, or deferred) closes the group: the commands before it are
//    charged at most their recent average, it gets the rest, so a slow GET still reaches the slow log.
//  - No grouping while per-command times are asked for at fine grain: slowlog-log-slower-than below 1 ms, or the
//    latency monitor on. A grouped command is never written to the slow log (its arguments are gone when the group
//    closes); its share reaches the slow log only when a stall spread over a group exceeds the threshold.
using System.Diagnostics;
using Garnet.server.Commands;
using Garnet.server.Session;

namespace Garnet.server.Metrics;

internal sealed class CommandTimer
{
    public const int GroupSize = 32;
    public const int SmallReply = 16 * 1024;
    private const int FineGrainUsec = 1000;

    // The open group as runs of one command: _runIds[r] ran _runCalls[r] times in a row, _runFailed[r] of them failed.
    private readonly int[] _runIds = new int[GroupSize], _runCalls = new int[GroupSize], _runFailed = new int[GroupSize];
    private int _runs;
    private int _count;         // commands in the open group
    private long _last;         // Stopwatch timestamp of the last reading in this batch, 0 = none yet
    private long _averageTicks; // a grouped command's share in recent groups (a moving average)

    /// <summary>Whether cmd may run without a reading of its own (it may still turn out big: see Ended).</summary>
    public static bool MayGroup(RespServer server, CommandDefinition cmd)
    {
        if ((cmd.Flags & CommandFlags.Fast) == 0 || server.Latency.ThresholdMs != 0) return false;
        int slow = server.SlowLog.ThresholdUsec;
        return slow < 0 || slow >= FineGrainUsec;
    }

    /// <summary>A new batch: its first command reads the clock when it starts. (A group left open by a caller that ran
    /// commands outside a batch, which Flush did not close, is charged its usual share.)</summary>
    public void BeginBatch(RespServer server)
    {
        if (_count > 0) Charge(server, _averageTicks);
        _last = 0;
    }

    /// <summary>The timestamp cmd's time runs from; closes the open group first when cmd cannot join it.</summary>
    public long Start(RespServer server, bool mayGroup)
    {
        if (_last == 0) return _last = Stopwatch.GetTimestamp();
        if (!mayGroup && _count > 0) CloseEvenly(server, Stopwatch.GetTimestamp());
        return _last;
    }

    /// <summary>
    /// cmd ended. Returns its ticks when it is timed alone (the caller observes it: slow log, latency monitor), or -1 when
    /// it joined the group (charged when the group closes).
    /// </summary>
    public long Ended(RespServer server, CommandDefinition cmd, long started, bool failed, bool mayGroup, bool small)
    {
        if (mayGroup && small)
        {
            int r = _runs - 1;
            if (r < 0 || _runIds[r] != cmd.Id)
            {
                r = _runs++;
                _runIds[r] = cmd.Id;
                _runCalls[r] = 0;
                _runFailed[r] = 0;
            }
            _runCalls[r]++;
            if (failed) _runFailed[r]++;
            if (++_count == GroupSize) CloseEvenly(server, Stopwatch.GetTimestamp());
            return -1;
        }
        long now = Stopwatch.GetTimestamp();
        long ticks = now - started;
        if (_count > 0 && mayGroup)
        {
            // A fast command that turned out big: it and the group ran since the group's start (= started). The group is
            // charged its usual share, the command the rest.
            long even = ticks / (_count + 1);
            long share = _averageTicks > 0 ? Math.Min(_averageTicks, even) : even;
            Charge(server, share);
            ticks -= share * _count;
        }
        else if (_count > 0) CloseEvenly(server, now); // commands cmd ran inside it (EXEC, scripts) since the last reading
        _last = now;
        return ticks;
    }

    /// <summary>End of the batch: the open group is charged up to now.</summary>
    public void Flush(RespServer server)
    {
        if (_count > 0) CloseEvenly(server, Stopwatch.GetTimestamp());
    }

    /// <summary>Charges the open group an even share of the time since its start (the last reading), now the last reading.</summary>
    private void CloseEvenly(RespServer server, long now)
    {
        long share = (now - _last) / _count;
        _averageTicks = _averageTicks == 0 ? share : (_averageTicks * 7 + share) / 8;
        Charge(server, share);
        _last = now;
    }

    private void Charge(RespServer server, long share)
    {
        server.CommandStats.ExecutedRuns(_runIds.AsSpan(0, _runs), _runCalls.AsSpan(0, _runs), _runFailed.AsSpan(0, _runs), share);
        _count = 0;
        _runs = 0;
    }
}
