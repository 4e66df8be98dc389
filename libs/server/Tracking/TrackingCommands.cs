// TrackingCommands: CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO with Redis 7.2's options,
// checks and error texts (see KeyTracking for what tracking does).
using System.Text;
using Garnet.server.Commands;
using Garnet.server.Session;
using Garnet.server.Storage;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Tracking;

public static class TrackingCommands
{
    public static void Tracking(CommandContext s)
    {
        long redirect = 0;
        bool bcast = false, optIn = false, optOut = false, noLoop = false;
        var prefixes = new List<byte[]>();
        for (int j = 3; j < s.Argc; j++)
        {
            bool more = j < s.Argc - 1;
            if (s.ArgEquals(j, "REDIRECT"u8) && more)
            {
                j++;
                if (redirect != 0) { s.WriteError("ERR A client can only redirect to a single other client"); return; }
                if (!NumberParsing.TryParseInt64(s.Arg(j), out redirect)) { s.WriteError(StringFunctions.NotInteger); return; }
                if (!s.Server.Clients.TryGet(redirect, out var target) || target is null) { s.WriteError("ERR The client ID you want redirect to does not exist"); return; }
            }
            else if (s.ArgEquals(j, "BCAST"u8)) bcast = true;
            else if (s.ArgEquals(j, "OPTIN"u8)) optIn = true;
            else if (s.ArgEquals(j, "OPTOUT"u8)) optOut = true;
            else if (s.ArgEquals(j, "NOLOOP"u8)) noLoop = true;
            else if (s.ArgEquals(j, "PREFIX"u8) && more) prefixes.Add(s.Arg(++j).ToArray());
            else { s.WriteError("ERR syntax error"); return; }
        }
        var t = s.Client.Tracking;
        if (s.ArgEquals(2, "ON"u8))
        {
            if (!bcast && prefixes.Count > 0) { s.WriteError("ERR PREFIX option requires BCAST mode to be enabled"); return; }
            if (t.On && t.Broadcast != bcast)
            {
                s.WriteError("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.");
                return;
            }
            if (bcast && (optIn || optOut)) { s.WriteError("ERR OPTIN and OPTOUT are not compatible with BCAST"); return; }
            if (optIn && optOut) { s.WriteError("ERR You can't specify both OPTIN mode and OPTOUT mode"); return; }
            if (t.On && ((optIn && t.OptOut) || (optOut && t.OptIn)))
            {
                s.WriteError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.");
                return;
            }
            if (bcast && PrefixCollision(t, prefixes) is { } error) { s.WriteError(error); return; }
            s.Server.Tracking.Enable(s.Client, t, redirect, bcast, optIn, optOut, noLoop, prefixes);
        }
        else if (s.ArgEquals(2, "OFF"u8)) s.Server.Tracking.Disable(s.Client, t);
        else { s.WriteError("ERR syntax error"); return; }
        s.Writer.WriteOk();
    }

    private static string? PrefixCollision(TrackingState t, List<byte[]> prefixes)
    {
        static bool Overlap(byte[] a, byte[] b) => a.AsSpan(0, Math.Min(a.Length, b.Length)).SequenceEqual(b.AsSpan(0, Math.Min(a.Length, b.Length)));
        for (int i = 0; i < prefixes.Count; i++)
        {
            foreach (var existing in t.Prefixes)
                if (Overlap(existing, prefixes[i]))
                    return $"ERR Prefix '{Encoding.UTF8.GetString(prefixes[i])}' overlaps with an existing prefix '{Encoding.UTF8.GetString(existing)}'. Prefixes for a single client must not overlap.";
            for (int j = i + 1; j < prefixes.Count; j++)
                if (Overlap(prefixes[i], prefixes[j]))
                    return $"ERR Prefix '{Encoding.UTF8.GetString(prefixes[i])}' overlaps with another provided prefix '{Encoding.UTF8.GetString(prefixes[j])}'. Prefixes for a single client must not overlap.";
        }
        return null;
    }

    public static void Caching(CommandContext s)
    {
        var t = s.Client.TrackingIfAny;
        if (t is not { On: true }) { s.WriteError("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"); return; }
        if (s.ArgEquals(2, "YES"u8))
        {
            if (!t.OptIn) { s.WriteError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."); return; }
        }
        else if (s.ArgEquals(2, "NO"u8))
        {
            if (!t.OptOut) { s.WriteError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."); return; }
        }
        else { s.WriteError("ERR syntax error"); return; }
        t.CachingGiven = true;
        s.Writer.WriteOk();
    }

    public static void GetRedir(CommandContext s) => s.Writer.WriteInteger(s.Client.TrackingIfAny is { On: true } t ? t.Redirect : -1);

    public static void TrackingInfo(CommandContext s)
    {
        var t = s.Client.TrackingIfAny;
        bool on = t is { On: true };
        var flags = new List<string> { on ? "on" : "off" };
        if (on)
        {
            if (t!.Broadcast) flags.Add("bcast");
            if (t.OptIn) { flags.Add("optin"); if (t.CachingGiven) flags.Add("caching-yes"); }
            if (t.OptOut) { flags.Add("optout"); if (t.CachingGiven) flags.Add("caching-no"); }
            if (t.NoLoop) flags.Add("noloop");
            if (t.BrokenRedirect) flags.Add("broken_redirect");
        }
        s.Writer.WriteMapHeader(3);
        s.Writer.WriteBulkString("flags");
        s.Writer.WriteSetHeader(flags.Count);
        foreach (var f in flags) s.Writer.WriteBulkString(f);
        s.Writer.WriteBulkString("redirect");
        s.Writer.WriteInteger(on ? t!.Redirect : -1);
        s.Writer.WriteBulkString("prefixes");
        var prefixes = on ? t!.Prefixes : [];
        s.Writer.WriteArrayHeader(prefixes.Count);
        foreach (var p in prefixes) s.Writer.WriteBulkString(p);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO.</summary>
    internal static CommandDefinition[] ClientSubcommandDeclarations()
    {
        const CommandFlags connFlags = NoScript | Loading | Stale;
        return
        [
            new()
            {
                Name = "tracking", Arity = -3, Flags = connFlags, Acl = A.Connection,
                Since = "6.0.0", Summary = "Controls server-assisted client-side caching for the connection.",
                Complexity = "O(1). Some options may introduce additional complexity.",
                Handler = Tracking,
            },
            new()
            {
                Name = "caching", Arity = 3, Flags = connFlags, Acl = A.Connection,
                Since = "6.0.0", Summary = "Instructs the server whether to track the keys in the next request.",
                Handler = Caching,
            },
            new()
            {
                Name = "getredir", Arity = 2, Flags = connFlags, Acl = A.Connection,
                Since = "6.0.0", Summary = "Returns the client ID to which the connection's tracking notifications are redirected.",
                Handler = GetRedir,
            },
            new()
            {
                Name = "trackinginfo", Arity = 2, Flags = connFlags, Acl = A.Connection,
                Since = "6.2.0", Summary = "Returns information about server-assisted client-side caching for the connection.",
                Handler = TrackingInfo,
            },
        ];
    }
}
