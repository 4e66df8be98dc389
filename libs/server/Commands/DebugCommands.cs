// DEBUG: the subset operators use, with Redis 7.2's replies: OBJECT, SLEEP, SET-ACTIVE-EXPIRE, HELP, plus JMAP (this
// server's: the .NET heap's figures, as MEMORY MALLOC-STATS). Every other Redis DEBUG subcommand (crashes, reloads,
// test hooks) is refused with a clear error; unknown ones get Redis's error.
// Who may run DEBUG is enable-debug-command (Config/ProtectedAction, checked by the session before the handler; default
// local here, no in Redis: docs/admin.md). Difference from Redis: DEBUG SLEEP holds only the calling client.
using System.Globalization;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;

namespace Garnet.server.Commands;

public static class DebugCommands
{
    public const string Supported = "HELP, OBJECT, SLEEP, SET-ACTIVE-EXPIRE, JMAP";

    // Redis 7.2's DEBUG subcommands this server does not do.
    private static readonly string[] s_redisOnly =
    [
        "aof-flush-sleep", "assert", "change-repl-id", "config-rewrite-force-all", "crash-and-recover", "digest", "digest-value",
        "drop-cluster-packet-filter", "error", "leak", "log", "htstats", "htstats-key", "listpack", "loadaof", "mallctl",
        "mallctl-str", "oom", "panic", "populate", "protocol", "quicklist-packed-threshold", "reload", "replicate", "restart",
        "sdslen", "segfault", "set-skip-checksum-validation", "stringmatch-test", "set-disable-deny-scripts",
        "client-eviction", "pause-cron", "replybuffer", "dict-resizing", "ziplist", "close-cluster-link-on-packet-drop",
        "script", "change-repl-id",
    ];

    public static void Debug(CommandContext s)
    {
        string sub = s.ArgString(1);
        if (s.Argc == 2 && s.ArgEquals(1, "HELP"u8)) { Help(s); return; }
        if (s.Argc == 3 && s.ArgEquals(1, "OBJECT"u8)) { Object(s); return; }
        if (s.Argc == 3 && s.ArgEquals(1, "SLEEP"u8)) { Sleep(s); return; }
        if (s.Argc == 3 && s.ArgEquals(1, "SET-ACTIVE-EXPIRE"u8))
        {
            // As Redis's atoi: a leading integer, anything else is 0.
            s.Server.Store.ActiveExpireEnabled = LeadingInt(s.ArgString(2)) != 0;
            s.Writer.WriteOk();
            return;
        }
        if (s.Argc == 2 && s.ArgEquals(1, "JMAP"u8)) { MemoryCommands.MallocStats(s); return; }
        if (Array.IndexOf(s_redisOnly, sub.ToLowerInvariant()) >= 0)
        {
            s.WriteError($"ERR DEBUG {sub.ToUpperInvariant()} is not supported by this server (supported: {Supported})");
            return;
        }
        s.WriteError($"ERR unknown subcommand or wrong number of arguments for '{(sub.Length > 128 ? sub[..128] : sub)}'. Try DEBUG HELP.");
    }

    private static long LeadingInt(string v)
    {
        int i = 0;
        if (i < v.Length && (v[i] == '-' || v[i] == '+')) i++;
        while (i < v.Length && char.IsAsciiDigit(v[i])) i++;
        return long.TryParse(v.AsSpan(0, i), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long n) ? n : 0;
    }

    /// <summary>DEBUG SLEEP seconds (decimals allowed; as Redis's strtod, a bad number is 0): this client waits, the
    /// thread serving it goes on serving other connections.</summary>
    private static void Sleep(CommandContext s)
    {
        double seconds = ParseLeadingDouble(s.ArgString(2));
        long ms = seconds > 0 && double.IsFinite(seconds) ? (long)Math.Min(seconds * 1000, int.MaxValue) : 0;
        if (ms == 0) { s.Writer.WriteOk(); return; }
        if (!s.CanFinishLater)
        {
            // Inside EXEC or a script the reply takes its place at once: the wait holds this thread, as Redis holds its one.
            Thread.Sleep((int)ms);
            s.Writer.WriteOk();
            return;
        }
        s.ReplyWhenDone(Task.Delay(TimeSpan.FromMilliseconds(ms)), static (session, _) => session.Writer.WriteOk());
    }

    private static double ParseLeadingDouble(string v)
    {
        for (int len = v.Length; len > 0; len--)
            if (double.TryParse(v.AsSpan(0, len), NumberStyles.Float, CultureInfo.InvariantCulture, out double d)) return d;
        return 0;
    }

    /// <summary>DEBUG OBJECT key: Redis's status line. "Value at" has no meaning here (records move in the log): 0x0.
    /// serializedlength is the value's RDB form (DUMP's payload without its type, version and checksum); lru is the last
    /// access in Redis's 24-bit seconds clock. The lookup does not touch the key.</summary>
    private static void Object(CommandContext s)
    {
        var st = s.Storage;
        bool noTouch = st.NoTouch;
        st.NoTouch = true;
        try
        {
            var usage = new StringInput { Op = StringOp.Usage };
            if (!st.Read(s.Arg(2), ref usage).IsFound()) { s.WriteError("ERR no such key"); return; }
            string encoding = st.Result.Text ?? "raw";
            bool shared = st.Result.SharedInteger;
            uint access = st.Result.AccessTime;
            var fetch = new StringInput { Op = StringOp.Fetch };
            if (!st.Read(s.Arg(2), ref fetch).IsFound()) { s.WriteError("ERR no such key"); return; }
            byte[] dump = st.Result.Value is { } collection ? DumpFormat.Dump(collection) : DumpFormat.Dump(st.Result.Old!);
            long idle = Math.Max(0, (long)Garnet.storage.Log.AccessClock.NowSeconds - access);
            s.Writer.WriteSimpleString(string.Create(CultureInfo.InvariantCulture,
                $"Value at:0x0 refcount:{(shared ? int.MaxValue : 1)} encoding:{encoding} serializedlength:{dump.Length - 11} lru:{access & 0xFFFFFF} lru_seconds_idle:{idle}"));
        }
        finally { st.NoTouch = noTouch; }
    }

    private static void Help(CommandContext s) => HelpText.Write(s, "DEBUG",
    [
        "JMAP", "    Show the .NET heap's statistics (this server's; as MEMORY MALLOC-STATS).",
        "OBJECT <key>", "    Show low level info about `key` and associated value.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "SLEEP <seconds>", "    Stop the server for <seconds>. Decimals allowed.",
        "    (This server stops only the calling client; other clients are served.)",
        "Other Redis DEBUG subcommands are not supported by this server.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>DEBUG.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "debug", Arity = -2, Flags = Admin | NoScript | Loading | Stale | Protected,
                Group = "server", Since = "1.0.0", Summary = "A container for debugging commands.",
                Complexity = "Depends on subcommand.",
                Handler = Debug,
            },
        ];
    }
}
