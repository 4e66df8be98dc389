// Connection commands: PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET (Redis 7.2 semantics and errors).
using System.Security.Cryptography;
using System.Text;
using Garnet.common.Resp;
using Garnet.server.Metrics;
using Garnet.server.Session;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class ConnectionCommands
{
    /// <summary>The Redis version we are compatible with, as HELLO and INFO report it.</summary>
    public const string CompatibleRedisVersion = "7.2.5";

    public static void Ping(CommandContext s)
    {
        if (s.Argc > 2) { s.WriteError("ERR wrong number of arguments for 'ping' command"); return; }
        if (s.Client.IsSubscribed && s.Protocol == 2)
        {
            // RESP2 subscribed mode: ["pong", message or ""], so that it cannot be taken for a message.
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString("pong"u8);
            s.Writer.WriteBulkString(s.Argc == 1 ? default : s.Arg(1));
            return;
        }
        if (s.Argc == 1) s.Writer.WriteRaw("+PONG\r\n"u8);
        else s.Writer.WriteBulkString(s.Arg(1));
    }

    public static void Echo(CommandContext s) => s.Writer.WriteBulkString(s.Arg(1));

    public static void Hello(CommandContext s)
    {
        int next = 1;
        long version = 0;
        if (s.Argc >= 2)
        {
            if (!RespRequestParser.TryParseLong(s.Arg(1), out version))
            {
                s.WriteError("ERR Protocol version is not an integer or out of range");
                return;
            }
            next = 2;
            if (version < 2 || version > 3)
            {
                s.WriteError("NOPROTO unsupported protocol version");
                return;
            }
        }
        string? user = null, pass = null, name = null;
        for (int j = next; j < s.Argc; j++)
        {
            int more = s.Argc - 1 - j;
            if (s.ArgEquals(j, "AUTH"u8) && more >= 2)
            {
                user = s.ArgString(j + 1);
                pass = s.ArgString(j + 2);
                j += 2;
            }
            else if (s.ArgEquals(j, "SETNAME"u8) && more >= 1)
            {
                name = s.ArgString(j + 1);
                j++;
            }
            else
            {
                s.WriteError($"ERR Syntax error in HELLO option '{s.ArgString(j)}'");
                return;
            }
        }
        if (user is not null && !TryAuthenticate(s, user, pass!)) return;
        if (!s.Client.Authenticated)
        {
            s.WriteError("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time");
            return;
        }
        if (name is not null && !ClientCommands.TrySetName(s, name)) return;
        if (version != 0) s.Client.Protocol = (int)version;

        var w = s.Writer;
        w.WriteMapHeader(7);
        w.WriteBulkString("server"); w.WriteBulkString("redis");
        w.WriteBulkString("version"); w.WriteBulkString(CompatibleRedisVersion);
        w.WriteBulkString("proto"); w.WriteInteger(s.Protocol);
        w.WriteBulkString("id"); w.WriteInteger(s.Client.Id);
        w.WriteBulkString("mode"); w.WriteBulkString("standalone");
        w.WriteBulkString("role"); w.WriteBulkString("master");
        w.WriteBulkString("modules"); w.WriteArrayHeader(0);
    }

    public static void Auth(CommandContext s)
    {
        if (s.Argc > 3) { s.WriteError("ERR syntax error"); return; }
        string user, pass;
        if (s.Argc == 2)
        {
            if (!s.Settings.PasswordRequired)
            {
                s.WriteError("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?");
                return;
            }
            user = "default";
            pass = s.ArgString(1);
        }
        else
        {
            user = s.ArgString(1);
            pass = s.ArgString(2);
        }
        if (TryAuthenticate(s, user, pass)) s.Writer.WriteOk();
    }

    /// <summary>Checks a user/password pair (only the default user exists until ACLs land). Writes WRONGPASS on failure.</summary>
    internal static bool TryAuthenticate(CommandContext s, string user, string pass)
    {
        bool ok = user == "default" && PasswordMatches(s.Settings.RequirePass, pass);
        if (!ok)
        {
            s.WriteError("WRONGPASS invalid username-password pair or user is disabled.");
            AuthFailureBound.Failed(s);
            return false;
        }
        s.Client.User = user;
        s.Client.Authenticated = true;
        return true;
    }

    private static bool PasswordMatches(string? required, string given)
    {
        if (string.IsNullOrEmpty(required)) return true; // the default user is "nopass"
        // Compare digests in constant time, as Redis does, so timing reveals nothing about the password.
        var a = SHA256.HashData(Encoding.UTF8.GetBytes(required));
        var b = SHA256.HashData(Encoding.UTF8.GetBytes(given));
        return CryptographicOperations.FixedTimeEquals(a, b);
    }

    public static void Select(CommandContext s)
    {
        if (!RespRequestParser.TryParseLong(s.Arg(1), out long db) || db < int.MinValue || db > int.MaxValue)
        {
            s.WriteError("ERR value is not an integer or out of range");
            return;
        }
        if (db < 0 || db >= s.Settings.Databases)
        {
            s.WriteError("ERR DB index is out of range");
            return;
        }
        s.Database = (int)db;
        s.Writer.WriteOk();
    }

    public static void Quit(CommandContext s)
    {
        s.Writer.WriteOk();
        s.CloseAfterReply();
    }

    public static void Reset(CommandContext s)
    {
        s.Client.ResetTransaction();
        PubSubCommands.UnsubscribeAll(s, notify: false);
        AdminClientCommands.StopMonitoring(s);
        s.Client.ReplyOff = s.Client.ReplySkipNext = false;
        if (s.Client.NoTouch) s.Client.NoTouch = false;
        s.Client.NoEvict = false;
        s.Database = 0;
        s.Client.Protocol = 2;
        s.Client.Name = null;
        s.Client.User = "default";
        s.Client.Authenticated = !s.Settings.PasswordRequired;
        s.Writer.WriteSimpleString("RESET"u8);
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>PING, ECHO, HELLO, AUTH, SELECT, QUIT, RESET.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "ping", Arity = -1, Flags = Fast | Sentinel, Acl = A.Connection,
                Group = "connection", Summary = "Returns the server's liveliness response.",
                Tips = ["request_policy:all_shards", "response_policy:all_succeeded"],
                AllowedWhileSubscribed = true, Handler = Ping,
            },
            new()
            {
                Name = "echo", Arity = 2, Flags = Fast, Acl = A.Connection,
                Group = "connection", Summary = "Returns the given string.",
                Handler = Echo,
            },
            new()
            {
                Name = "hello", Arity = -1, Flags = NoScript | Loading | Stale | Fast | NoAuth | Sentinel | AllowBusy, Acl = A.Connection,
                Group = "connection", Since = "6.0.0", Summary = "Handshakes with the Redis server.",
                Redacts = HelloSecrets, Handler = Hello,
            },
            new()
            {
                Name = "auth", Arity = -2, Flags = NoScript | Loading | Stale | Fast | NoAuth | Sentinel | AllowBusy, Acl = A.Connection,
                Group = "connection", Summary = "Authenticates the connection.",
                Complexity = "O(N) where N is the number of passwords defined for the user",
                Redacts = ArgumentRedaction.EveryArgument, Handler = Auth,
            },
            new()
            {
                Name = "select", Arity = 2, Flags = Loading | Stale | Fast, Acl = A.Connection,
                Group = "connection", Summary = "Changes the selected database.",
                Handler = Select,
            },
            new()
            {
                Name = "quit", Arity = -1, Flags = AllowBusy | NoScript | Loading | Stale | Fast | NoAuth, Acl = A.Connection,
                Group = "connection", Summary = "Closes the connection.",
                RunsInMulti = true, AllowedWhileSubscribed = true, Handler = Quit,
            },
            new()
            {
                Name = "reset", Arity = 1, Flags = NoScript | Loading | Stale | Fast | NoAuth | AllowBusy, Acl = A.Connection,
                Group = "connection", Since = "6.2.0", Summary = "Resets the connection.",
                RunsInMulti = true, AllowedWhileSubscribed = true, Handler = Reset,
            },
        ];
    }

    /// <summary>HELLO's secrets: the user name and password after AUTH (SETNAME's value is skipped over, not redacted).</summary>
    private static bool HelloSecrets(int argc, ArgumentRedaction.ArgReader arg, int i)
    {
        for (int j = 2; j < argc; j++)
        {
            if (Ascii.EqualsIgnoreCase(arg(j), "AUTH"u8) && j + 2 < argc) { if (i == j + 1 || i == j + 2) return true; j += 2; }
            else if (Ascii.EqualsIgnoreCase(arg(j), "SETNAME"u8)) j++;
        }
        return false;
    }
}
