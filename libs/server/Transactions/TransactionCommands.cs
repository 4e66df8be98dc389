// TransactionCommands: MULTI, EXEC, DISCARD, WATCH, UNWATCH with Redis 7.2's rules.
// - Inside MULTI every other command is checked (lookup, arity, auth, not-in-MULTI) and queued (+QUEUED); a refused one
//   makes EXEC answer EXECABORT. Runtime errors inside EXEC are replies in its array and roll nothing back.
// - EXEC takes the exclusive locks of every key of every queued command at once (every key, when one of them is a keyless
//   write such as FLUSHALL), so no other client sees part of it; then checks its WATCHes (a changed key, or one that
//   existed at WATCH and has expired since) and runs the commands in order. Their writes go to the AOF as one
//   MULTI ... EXEC batch (RespServerSession.BeginExec/EndExec). The commands' own lock calls are no-ops meanwhile
//   (KeyLocks.Hold), so nothing waits on EXEC's own locks.
// - Blocking commands inside EXEC answer at once as their non-blocking forms would (RespServerSession.InExec).
using Garnet.server.Commands;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Transactions;

public static class TransactionCommands
{
    public static void Multi(CommandContext s)
    {
        var t = s.Client.Transaction;
        if (t.InMulti) { s.WriteError("ERR MULTI calls can not be nested"); return; }
        t.Begin();
        s.Writer.WriteOk();
    }

    public static void Discard(CommandContext s)
    {
        var t = s.Client.Transaction;
        if (!t.InMulti) { s.WriteError("ERR DISCARD without MULTI"); return; }
        t.Discard();
        s.Writer.WriteOk();
    }

    public static void Watch(CommandContext s)
    {
        var t = s.Client.Transaction;
        if (t.InMulti) { s.WriteError("ERR WATCH inside MULTI is not allowed"); return; }
        for (int i = 1; i < s.Argc; i++) t.Watch(s.Database, s.Arg(i), KeyCommands.Exists(s, s.Arg(i)));
        s.Writer.WriteOk();
    }

    public static void Unwatch(CommandContext s)
    {
        s.Client.Transaction.Unwatch();
        s.Writer.WriteOk();
    }

    /// <summary>Queues the request (already checked) for EXEC.</summary>
    internal static void Queue(CommandContext s, CommandDefinition cmd)
    {
        var t = s.Client.Transaction;
        var args = new byte[s.Argc][];
        long bytes = 0;
        for (int i = 0; i < args.Length; i++) { args[i] = s.Arg(i).ToArray(); bytes += args[i].Length + 16; }
        if (t.QueuedBytes + bytes > s.Settings.Limits.QueryBufferLimit)
        {
            s.WriteError("ERR transaction queue is over client-query-buffer-limit");
            t.FlagQueueingError();
            return;
        }
        t.Enqueue(cmd, args, bytes);
        s.Writer.WriteSimpleString("QUEUED"u8);
    }

    public static void Exec(CommandContext s)
    {
        var t = s.Client.Transaction;
        if (!t.InMulti) { s.WriteError("ERR EXEC without MULTI"); return; }
        if (t.QueueingFailed)
        {
            t.Discard();
            s.WriteError("EXECABORT Transaction discarded because of previous errors.");
            return;
        }
        var queued = t.Commands.ToArray();
        // A keyless write (FLUSHALL, SWAPDB) or admin command (CONFIG SET appendonly, ...) may take every key lock itself:
        // then EXEC holds them all.
        // A script (EVAL, FCALL) may touch any key: it needs them all too.
        bool everyKey = queued.Any(q => (!q.Command.HasStoreKeys && (q.Command.Flags & (CommandFlags.Write | CommandFlags.Admin)) != 0) || (q.Command.Acl & AclCategories.Scripting) != 0);
        var locks = s.Client.KeyLocksOfExec;
        if (everyKey) s.Server.Store.Locks.EnterAll();
        else locks.AcquireExclusive(queued.SelectMany(q => KeysOf(q.Command, q.Args)).Concat(t.WatchedKeys.Select(w => w.Key)));
        var written = new List<(int Db, byte[] Key)>();
        var held = s.Server.Store.Locks.Hold(everyKey ? null : locks.HeldBits);
        try
        {
            if (t.WatchBroken || WatchedKeyExpired(s, t))
            {
                t.Discard();
                s.Writer.WriteNullArray();
                return;
            }
            t.Discard(); // unwatches before running, as Redis: the transaction's own writes need not break anything
            s.Writer.WriteArrayHeader(queued.Length);
            s.Client.BeginExec();
            try
            {
                foreach (var q in queued)
                {
                    s.Client.RunQueued(q.Command, q.Args);
                    if ((q.Command.Flags & CommandFlags.Write) != 0)
                        foreach (var key in KeysOf(q.Command, q.Args)) written.Add((s.Database, key));
                }
            }
            finally { s.Client.EndExec(); }
        }
        finally
        {
            held.Dispose();
            if (everyKey) s.Server.Store.Locks.ExitAll();
            else locks.Release();
        }
        if (s.Server.Blocked.Count > 0) foreach (var (db, key) in written) s.Server.Blocked.Signal(db, key);
    }

    /// <summary>A watched key that existed at WATCH and is gone now without a write touching it has expired: Redis fails
    /// the EXEC for that too.</summary>
    private static bool WatchedKeyExpired(CommandContext s, TransactionState t)
    {
        foreach (var w in t.WatchedKeys)
            if (w.Existed && !KeyCommands.Exists(s, w.Key, w.Db)) return true;
        return false;
    }

    /// <summary>The key arguments of a queued command (as the command table names them).</summary>
    internal static IEnumerable<byte[]> KeysOf(CommandDefinition cmd, byte[][] args)
    {
        if (!cmd.HasStoreKeys) yield break;
        var keys = cmd.KeysOf(args);
        for (int i = keys.First, last = keys.LastIndex(args.Length); i <= last; i += keys.Stride) yield return args[i];
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>MULTI, EXEC, DISCARD, WATCH, UNWATCH.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "multi", Arity = 1, Flags = NoScript | Loading | Stale | Fast | AllowBusy, Acl = A.Transaction,
                Group = "transactions", Since = "1.2.0", Summary = "Starts a transaction.",
                RunsInMulti = true, Handler = Multi,
            },
            new()
            {
                Name = "exec", Arity = 1, Flags = NoScript | Loading | Stale | SkipSlowlog, Acl = A.Transaction,
                Group = "transactions", Since = "1.2.0", Summary = "Executes all commands in a transaction.",
                Complexity = "Depends on commands in the transaction",
                RunsInMulti = true, RunsQueuedCommands = true, Handler = Exec,
            },
            new()
            {
                Name = "discard", Arity = 1, Flags = NoScript | Loading | Stale | Fast | AllowBusy, Acl = A.Transaction,
                Group = "transactions", Since = "2.0.0", Summary = "Discards a transaction.",
                Complexity = "O(N), when N is the number of queued commands",
                RunsInMulti = true, Handler = Discard,
            },
            new()
            {
                Name = "watch", Arity = -2, Flags = NoScript | Loading | Stale | Fast | AllowBusy, Acl = A.Transaction, Keys = new KeyRange(1, -1, 1),
                Group = "transactions", Since = "2.2.0", Summary = "Monitors changes to keys to determine the execution of a transaction.",
                Complexity = "O(1) for every key.",
                RunsInMulti = true, Handler = Watch,
            },
            new()
            {
                Name = "unwatch", Arity = 1, Flags = NoScript | Loading | Stale | Fast | AllowBusy, Acl = A.Transaction,
                Group = "transactions", Since = "2.2.0", Summary = "Forgets about watched keys of a transaction.",
                Handler = Unwatch,
            },
        ];
    }
}
