// ArgumentRedaction: which arguments of a command carry a secret and are shown as "(redacted)" wherever a command's
// arguments are recorded (SLOWLOG, MONITOR), as Redis's redactClientCommandArgument callers do. A command of the table
// says which in its declaration (CommandDefinition.Redacts, a Rule):
//   AUTH: every argument; HELLO ... AUTH <user> <pass> (SETNAME's value is skipped over, not redacted);
//   CONFIG SET: the value after a sensitive parameter (requirepass, masterauth, masteruser, tls-*-pass), every pair
//   checked even when the command fails.
// The Redis commands this server lacks, which have no declaration, are kept here:
//   MIGRATE ... AUTH <pass> / AUTH2 <user> <pass>; ACL SETUSER / DELUSER: everything from the user name on; ACL GETUSER:
//   the user name.
// Invariants:
//  - Pure function of the arguments: the same answer for every recorder, before or after the command ran.
//  - Argument 0 (the command name) is never redacted.
using Garnet.server.Commands;
using Garnet.server.Session;

namespace Garnet.server.Metrics;

public static class ArgumentRedaction
{
    public static readonly byte[] Redacted = "(redacted)"u8.ToArray();

    /// <summary>Whether argument i of the command session s is running is a secret.</summary>
    public static bool IsRedacted(RespServerSession s, int i) => IsRedacted(s.Argc, j => s.Arg(j), i);

    public delegate ReadOnlySpan<byte> ArgReader(int index);

    /// <summary>A command's secrets (CommandDefinition.Redacts): whether argument i (1 &lt;= i &lt; argc) is one.</summary>
    public delegate bool Rule(int argc, ArgReader arg, int i);

    /// <summary>Every argument is a secret (AUTH).</summary>
    public static readonly Rule EveryArgument = static (_, _, _) => true;

    public static bool IsRedacted(int argc, ArgReader arg, int i)
    {
        if (i <= 0 || i >= argc) return false;
        var cmd = CommandTable.Default.Find(arg(0));
        if (cmd is { HasSubcommands: true } && argc > 1) cmd = cmd.FindSubcommand(arg(1)) ?? cmd;
        if (cmd?.Redacts is { } rule) return rule(argc, arg, i);
        return IsRedactedByLackedCommand(argc, arg, i);
    }

    /// <summary>The Redis commands that redact arguments and that this server does not have (so no declaration says it).</summary>
    private static bool IsRedactedByLackedCommand(int argc, ArgReader arg, int i)
    {
        var name = arg(0);
        if (Is(name, "MIGRATE"u8))
        {
            for (int j = 6; j < argc; j++)
            {
                if (Is(arg(j), "AUTH"u8) && j + 1 < argc) { if (i == j + 1) return true; j += 1; }
                else if (Is(arg(j), "AUTH2"u8) && j + 2 < argc) { if (i == j + 1 || i == j + 2) return true; j += 2; }
                else if (Is(arg(j), "KEYS"u8)) return false;
            }
            return false;
        }
        if (Is(name, "ACL"u8) && argc >= 3)
        {
            var sub = arg(1);
            if (Is(sub, "SETUSER"u8) || Is(sub, "DELUSER"u8)) return i >= 2;
            if (Is(sub, "GETUSER"u8)) return i == 2;
        }
        return false;
    }

    private static bool Is(ReadOnlySpan<byte> a, ReadOnlySpan<byte> upperAscii) => System.Text.Ascii.EqualsIgnoreCase(a, upperAscii);
}
