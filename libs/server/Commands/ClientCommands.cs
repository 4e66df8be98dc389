// CLIENT subcommands: ID, SETNAME, GETNAME, LIST, INFO, KILL, SETINFO, HELP (Redis 7.2 semantics).
using System.Globalization;
using System.Net;
using System.Text;
using Garnet.common.Resp;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ClientCommands
{
    public static void Id(CommandContext s) => s.Writer.WriteInteger(s.Client.Id);

    public static void SetName(CommandContext s)
    {
        if (TrySetName(s, s.ArgString(2))) s.Writer.WriteOk();
    }

    /// <summary>Sets (or with "" clears) the client name; writes Redis's error for invalid characters.</summary>
    internal static bool TrySetName(CommandContext s, string name)
    {
        if (!IsValidAttribute(name))
        {
            s.WriteError("ERR Client names cannot contain spaces, newlines or special characters.");
            return false;
        }
        s.Client.Name = name.Length == 0 ? null : name;
        return true;
    }

    private static bool IsValidAttribute(string value)
    {
        foreach (char c in value)
            if (c < '!' || c > '~') return false;
        return true;
    }

    public static void GetName(CommandContext s)
    {
        if (s.Client.Name is null) s.Writer.WriteNull();
        else s.Writer.WriteBulkString(s.Client.Name);
    }

    public static void SetInfo(CommandContext s)
    {
        string attr = s.ArgString(2);
        string value = s.ArgString(3);
        bool isName = attr.Equals("lib-name", StringComparison.OrdinalIgnoreCase);
        if (!isName && !attr.Equals("lib-ver", StringComparison.OrdinalIgnoreCase))
        {
            s.WriteError($"ERR Unrecognized option '{attr}'");
            return;
        }
        if (!IsValidAttribute(value))
        {
            s.WriteError($"ERR {attr} cannot contain spaces, newlines or special characters.");
            return;
        }
        if (isName) s.Client.LibName = value.Length == 0 ? null : value;
        else s.Client.LibVersion = value.Length == 0 ? null : value;
        s.Writer.WriteOk();
    }

    public static void Info(CommandContext s) => s.Writer.WriteVerbatimString(Describe(s.Client));

    public static void List(CommandContext s)
    {
        var clients = s.Server.Clients.Snapshot().Where(c => !c.IsKilled).ToList();
        if (s.Argc == 4 && s.ArgEquals(2, "TYPE"u8))
        {
            string type = s.ArgString(3).ToLowerInvariant();
            if (type is not ("normal" or "master" or "replica" or "slave" or "pubsub"))
            {
                s.WriteError($"ERR Unknown client type '{s.ArgString(3)}'");
                return;
            }
            // As Redis's getClientType: a client with subscriptions is a pubsub one; there are no masters or replicas.
            clients = clients.Where(c => IsOfType(c, type)).ToList();
        }
        else if (s.Argc >= 4 && s.ArgEquals(2, "ID"u8))
        {
            var byId = clients.ToDictionary(c => c.Id);
            var selected = new List<RespServerSession>();
            for (int i = 3; i < s.Argc; i++)
            {
                if (!RespRequestParser.TryParseLong(s.Arg(i), out long id) || id <= 0)
                {
                    s.WriteError("ERR Invalid client ID");
                    return;
                }
                if (byId.TryGetValue(id, out var c)) selected.Add(c);
            }
            clients = selected;
        }
        else if (s.Argc != 2)
        {
            s.WriteError("ERR syntax error");
            return;
        }
        var sb = new StringBuilder();
        foreach (var c in clients) sb.Append(Describe(c));
        s.Writer.WriteVerbatimString(sb.ToString());
    }

    private static bool IsOfType(RespServerSession c, string type) => type switch
    {
        "normal" => !c.IsSubscribed,
        "pubsub" => c.IsSubscribed,
        _ => false,
    };

    /// <summary>One CLIENT LIST line, in Redis 7.2's field order.</summary>
    internal static string Describe(RespServerSession c)
    {
        long now = Environment.TickCount64;
        var conn = c.Connection;
        int qbuf = conn.QueryBufferLength;
        var subs = c.Subscriptions;
        long omem = conn.PendingPushBytes;
        var sb = new StringBuilder(256);
        sb.Append("id=").Append(c.Id)
          .Append(" addr=").Append(FormatPeer(conn, local: false))
          .Append(" laddr=").Append(FormatPeer(conn, local: true))
          .Append(" fd=").Append(conn.Handle)
          .Append(" name=").Append(c.Name ?? "")
          .Append(" age=").Append((now - c.CreatedMs) / 1000)
          .Append(" idle=").Append((now - c.LastInteractionMs) / 1000)
          .Append(" flags=").Append(Flags(c))
          .Append(" db=").Append(c.Database)
          .Append(" sub=").Append(subs?.ChannelCount ?? 0)
          .Append(" psub=").Append(subs?.PatternCount ?? 0)
          .Append(" ssub=").Append(subs?.ShardChannelCount ?? 0)
          .Append(" multi=").Append(c.TransactionIfAny is { InMulti: true } tx ? tx.Commands.Count : -1)
          .Append(" qbuf=").Append(qbuf)
          .Append(" qbuf-free=").Append(Math.Max(0, conn.QueryBufferCapacity - qbuf))
          .Append(" argv-mem=0 multi-mem=0")
          .Append(" rbs=").Append(conn.QueryBufferCapacity)
          .Append(" rbp=").Append(conn.QueryBufferCapacity)
          .Append(" obl=0 oll=0 omem=").Append(omem)
          .Append(" tot-mem=").Append(conn.QueryBufferCapacity + c.Writer.Length + omem + 1024)
          .Append(" events=r")
          .Append(" cmd=").Append(c.LastCommand)
          .Append(" user=").Append(c.User)
          .Append(" redir=").Append(c.TrackingIfAny is { On: true } tr ? tr.Redirect : -1)
          .Append(" resp=").Append(c.Protocol)
          .Append(" lib-name=").Append(c.LibName ?? "")
          .Append(" lib-ver=").Append(c.LibVersion ?? "")
          .Append('\n');
        return sb.ToString();
    }

    /// <summary>CLIENT LIST flags=, as Redis's letters: P subscribed, x in MULTI, d a watched key changed, t tracking, B broadcast tracking,
    /// R broken tracking redirection; N for none.</summary>
    private static string Flags(RespServerSession c)
    {
        var f = new StringBuilder(4);
        if (c.IsMonitor) f.Append('O');
        if (c.IsSubscribed) f.Append('P');
        if (c.TransactionIfAny is { } tx)
        {
            if (tx.InMulti) f.Append('x');
            if (tx.WatchBroken) f.Append('d');
        }
        if (c.TrackingIfAny is { On: true } tr)
        {
            f.Append('t');
            if (tr.Broadcast) f.Append('B');
            if (tr.BrokenRedirect) f.Append('R');
        }
        if (c.NoEvict) f.Append('e');
        if (c.NoTouch) f.Append('T');
        return f.Length == 0 ? "N" : f.ToString();
    }

    /// <summary>A client's address (local: the server's end) as Redis shows it: ip:port, or &lt;unixsocket&gt;:0 for a client
    /// connected through the Unix socket.</summary>
    internal static string FormatPeer(Garnet.common.Networking.ISessionChannel c, bool local) =>
        c.UnixSocketPath is { } path ? path + ":0" : FormatEndPoint(local ? c.LocalEndPoint : c.RemoteEndPoint);

    internal static string FormatEndPoint(IPEndPoint? ep)
    {
        if (ep is null) return "";
        var addr = ep.Address.IsIPv4MappedToIPv6 ? ep.Address.MapToIPv4() : ep.Address;
        var text = addr.ToString();
        return (text.Contains(':') ? "[" + text + "]" : text) + ":" + ep.Port.ToString(CultureInfo.InvariantCulture);
    }

    /// <summary>CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when that client was blocked (it then answers as on a timeout, or
    /// with -UNBLOCKED), else 0.</summary>
    public static void Unblock(CommandContext s)
    {
        if (!long.TryParse(s.ArgString(2), System.Globalization.NumberStyles.AllowLeadingSign, System.Globalization.CultureInfo.InvariantCulture, out long id))
        { s.WriteError("ERR value is not an integer or out of range"); return; }
        bool withError = false;
        if (s.Argc == 4)
        {
            if (s.ArgEquals(3, "ERROR"u8)) withError = true;
            else if (!s.ArgEquals(3, "TIMEOUT"u8)) { s.WriteError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"); return; }
        }
        else if (s.Argc > 4) { s.WriteError("ERR syntax error"); return; }
        s.Writer.WriteInteger(s.Server.Blocked.Unblock(id, withError) ? 1 : 0);
    }

    public static void Kill(CommandContext s)
    {
        var clients = s.Server.Clients.Snapshot().Where(c => !c.IsKilled).ToList();
        if (s.Argc == 3)
        {
            // Old form: CLIENT KILL addr:port
            string addr = s.ArgString(2);
            var target = clients.FirstOrDefault(c => FormatPeer(c.Connection, local: false) == addr);
            if (target is null) { s.WriteError("ERR No such client"); return; }
            s.Writer.WriteOk();
            KillOne(s.Client, target);
            return;
        }
        long? id = null; string? addrFilter = null, laddrFilter = null, user = null, type = null; long maxAge = 0;
        bool skipMe = true;
        for (int i = 2; i < s.Argc; i += 2)
        {
            if (i + 1 >= s.Argc) { s.WriteError("ERR syntax error"); return; }
            string value = s.ArgString(i + 1);
            if (s.ArgEquals(i, "ID"u8))
            {
                if (!RespRequestParser.TryParseLong(s.Arg(i + 1), out long v) || v <= 0)
                {
                    s.WriteError("ERR client-id should be greater than 0");
                    return;
                }
                id = v;
            }
            else if (s.ArgEquals(i, "TYPE"u8))
            {
                type = value.ToLowerInvariant();
                if (type is not ("normal" or "master" or "replica" or "slave" or "pubsub"))
                {
                    s.WriteError($"ERR Unknown client type '{value}'");
                    return;
                }
            }
            else if (s.ArgEquals(i, "ADDR"u8)) addrFilter = value;
            else if (s.ArgEquals(i, "LADDR"u8)) laddrFilter = value;
            else if (s.ArgEquals(i, "USER"u8))
            {
                if (value != "default") { s.WriteError($"ERR No such user '{value}'"); return; }
                user = value;
            }
            else if (s.ArgEquals(i, "SKIPME"u8))
            {
                if (s.ArgEquals(i + 1, "YES"u8)) skipMe = true;
                else if (s.ArgEquals(i + 1, "NO"u8)) skipMe = false;
                else { s.WriteError("ERR syntax error"); return; }
            }
            else if (s.ArgEquals(i, "MAXAGE"u8)) // Redis 7.4's option, accepted here too
            {
                if (!RespRequestParser.TryParseLong(s.Arg(i + 1), out maxAge) || maxAge < 0)
                {
                    s.WriteError("ERR value is not an integer or out of range");
                    return;
                }
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        long now = Environment.TickCount64;
        var victims = clients.Where(c =>
            (id is null || c.Id == id) &&
            (addrFilter is null || FormatPeer(c.Connection, local: false) == addrFilter) &&
            (laddrFilter is null || FormatPeer(c.Connection, local: true) == laddrFilter) &&
            (user is null || c.User == user) &&
            (type is null || IsOfType(c, type)) &&
            (maxAge == 0 || (now - c.CreatedMs) / 1000 >= maxAge) &&
            !(skipMe && c == s.Client)).ToList();
        s.Writer.WriteInteger(victims.Count);
        foreach (var v in victims) KillOne(s.Client, v);
    }

    private static void KillOne(RespServerSession self, RespServerSession target)
    {
        if (target == self) self.CloseAfterReply();
        else target.Kill();
    }

    public static void Help(CommandContext s) => HelpText.Write(s, "CLIENT",
    [
        "ID", "    Return the ID of the current connection.",
        "INFO", "    Return information about the current client connection.",
        "GETNAME", "    Return the name of the current connection.",
        "KILL <ip:port>", "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)", "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)", "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Kill connections by type.",
        "    * USER <username>", "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)", "      Skip killing current connection (default: yes).",
        "    * ID <client-id>", "      Kill connections by client id.",
        "    * MAXAGE <maxage>", "      Kill connections older than the specified age.",
        "LIST [options ...]", "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Return clients of specified type.",
        "    * ID <client-id> [<client-id> ...]", "      Return clients of specified IDs only.",
        "UNPAUSE", "    Stop the current client pause, resuming traffic.",
        "PAUSE <timeout> [WRITE|ALL]", "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
        "SETNAME <name>", "    Assign the name <name> to the current connection.",
        "SETINFO <option> <value>", "    Set client meta attr. Options are:",
        "    * LIB-NAME: the client lib name.", "    * LIB-VER: the client lib version.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]", "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO", "    Report tracking status for the current connection.",
        "CACHING (YES|NO)", "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
        "NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
        "NO-TOUCH (ON|OFF)", "    Will not touch LRU/LFU stats when this mode is on.",
    ]);

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>CLIENT.</summary>
    internal static CommandDefinition[] Declarations()
    {
        const CommandFlags connFlags = NoScript | Loading | Stale;
        return
        [
            new()
            {
                Name = "client", Arity = -2, Acl = A.Slow, KeepsTrackingCaching = true,
                Group = "connection", Since = "2.4.0", Summary = "A container for client connection commands.",
                Complexity = "Depends on subcommand.",
                Subcommands =
                [
                    new()
                    {
                        Name = "id", Arity = 2, Flags = connFlags, Acl = A.Connection,
                        Since = "5.0.0", Summary = "Returns the unique client ID of the connection.",
                        Handler = Id,
                    },
                    new()
                    {
                        Name = "setname", Arity = 3, Flags = connFlags, Acl = A.Connection,
                        Since = "2.6.9", Summary = "Sets the connection name.",
                        Handler = SetName,
                    },
                    new()
                    {
                        Name = "getname", Arity = 2, Flags = connFlags, Acl = A.Connection,
                        Since = "2.6.9", Summary = "Returns the name of the connection.",
                        Handler = GetName,
                    },
                    new()
                    {
                        Name = "list", Arity = -2, Flags = Admin | connFlags, Acl = A.Connection,
                        Since = "2.4.0", Summary = "Lists open connections.",
                        Complexity = "O(N) where N is the number of client connections",
                        Tips = ["nondeterministic_output"],
                        Handler = List,
                    },
                    new()
                    {
                        Name = "info", Arity = 2, Flags = connFlags, Acl = A.Connection,
                        Since = "6.2.0", Summary = "Returns information about the connection.",
                        Tips = ["nondeterministic_output"],
                        Handler = Info,
                    },
                    new()
                    {
                        Name = "kill", Arity = -3, Flags = Admin | connFlags, Acl = A.Connection,
                        Since = "2.4.0", Summary = "Terminates open connections.",
                        Complexity = "O(N) where N is the number of client connections",
                        Handler = Kill,
                    },
                    new()
                    {
                        Name = "setinfo", Arity = 4, Flags = connFlags, Acl = A.Connection,
                        Since = "7.2.0", Summary = "Sets information specific to the client or connection.",
                        Tips = ["request_policy:all_nodes", "response_policy:all_succeeded"],
                        Handler = SetInfo,
                    },
                    new()
                    {
                        Name = "unblock", Arity = -3, Flags = Admin | connFlags, Acl = A.Connection,
                        Since = "5.0.0", Summary = "Unblocks a client blocked by a blocking command from a different connection.",
                        Complexity = "O(log N) where N is the number of client connections",
                        Handler = Unblock,
                    },
                    ..Tracking.TrackingCommands.ClientSubcommandDeclarations(),
                    ..AdminClientCommands.ClientSubcommandDeclarations(),
                    new()
                    {
                        Name = "help", Arity = 2, Flags = Loading | Stale, Acl = A.Connection,
                        Since = "5.0.0", Summary = "Returns helpful text about the different subcommands.",
                        Handler = Help,
                    },
                ],
            },
        ];
    }
}
