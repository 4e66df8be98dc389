// AofSwitch: turns the append-only file on or off while the server runs (CONFIG SET appendonly yes|no).
//  - On: a new AofLog is opened on a fresh file number and installed, then a checkpoint is started in the background.
//    Its cut rotates the new log (as BGREWRITEAOF does), so from then on recovery = that checkpoint + the AOF after it.
//  - Off: the log is uninstalled, then closed (what it holds is written and fsynced). Its files stay; the next
//    checkpoint records that they are older than it.
// Invariants:
//  - The log is installed and removed with every key lock held (KeyLocks.EnterAll): no keyed command is between its
//    key locks and its append, and no checkpoint is at its cut, so each sees one state. Keyless writes (FLUSHDB, ...)
//    run under the same locks.
//  - One switch at a time per server. Positions (Lsn) of a new log continue after the last one handed out, so a
//    connection that still holds a position of an older log never waits on the new one.
//  - Until the first checkpoint after turning the AOF on is durable, a restart with --aof would replay the new files
//    on top of the previous checkpoint, without the writes made between the two (docs/persistence.md).
using System.Runtime.CompilerServices;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Persistence;

public static class AofSwitch
{
    private sealed class State
    {
        public long LastLsn;
    }

    private static readonly ConditionalWeakTable<RespServer, State> s_states = new();

    public static void Enable(RespServer server)
    {
        var state = s_states.GetValue(server, _ => new State());
        var logger = server.LoggerFactory.CreateLogger("Garnet.Aof");
        lock (state)
        {
            if (server.Aof is not null) return;
            string dir = server.Settings.Dir;
            long next = Math.Max(1, AofLog.Existing(dir).Select(f => f.sequence).DefaultIfEmpty(0).Max() + 1);
            var aof = new AofLog(dir, next, server.Settings.AofFsync, logger, state.LastLsn);
            var locks = server.Store.Locks;
            locks.EnterAll();
            try
            {
                server.Aof = aof;
                server.Checkpoints.Aof = aof;
                server.Settings.Aof = true;
            }
            finally { locks.ExitAll(); }
            logger.LogInformation("Append-only file turned on ({File}); taking a checkpoint to start it from", AofLog.FileName(next));
        }
        _ = Task.Run(async () =>
        {
            try { await server.Checkpoints.SaveAsync("appendonly", waitForRunning: true).ConfigureAwait(false); }
            catch (Exception ex) { logger.LogError(ex, "The checkpoint after turning the append-only file on failed; BGREWRITEAOF retries it"); }
        });
    }

    public static void Disable(RespServer server)
    {
        var state = s_states.GetValue(server, _ => new State());
        lock (state)
        {
            var aof = server.Aof;
            if (aof is null) return;
            var locks = server.Store.Locks;
            locks.EnterAll();
            try
            {
                server.Aof = null;
                server.Checkpoints.Aof = null;
                server.Settings.Aof = false;
            }
            finally { locks.ExitAll(); }
            state.LastLsn = aof.AppendedLsn;
            aof.Dispose(); // writes and fsyncs what it holds, then closes the file
            server.LoggerFactory.CreateLogger("Garnet.Aof").LogInformation("Append-only file turned off");
        }
    }
}
