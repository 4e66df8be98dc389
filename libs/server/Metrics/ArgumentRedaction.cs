// ArgumentRedaction: which arguments of a command carry a secret and are shown as "(redacted)" wherever a command's
// arguments are recorded (SLOWLOG, MONITOR), as Redis's redactClientCommandArgument callers do:
//   AUTH: every argument; HELLO ... AUTH <user> <pass> (SETNAME's value is skipped over, not redacted);
//   CONFIG SET: the value after a sensitive parameter (requirepass, masterauth, masteruser, tls-*-pass), every pair
//   checked even when the command fails; MIGRATE ... AUTH <pass> / AUTH2 <user> <pass>;
//   ACL SETUSER / DELUSER: everything from the user name on; ACL GETUSER: the user name.
// Invariants:
//  - Pure function of the arguments: the same answer for every recorder, before or after the command ran.
//  - Argument 0 (the command name) is never redacted.
using Garnet.server.Session;

namespace Garnet.server.Metrics;

public static class ArgumentRedaction
{
    public static readonly byte[] Redacted = "(redacted)"u8.ToArray();

    /// <summary>CONFIG SET parameters whose value is a secret (Redis's SENSITIVE_CONFIG).</summary>
    private static readonly byte[][] s_sensitiveConfigs =
        ["REQUIREPASS"u8.ToArray(), "MASTERAUTH"u8.ToArray(), "MASTERUSER"u8.ToArray(), "TLS-KEY-FILE-PASS"u8.ToArray(),
         "TLS-CLIENT-KEY-FILE-PASS"u8.ToArray()];

    /// <summary>Whether argument i of the command session s is running is a secret.</summary>
    public static bool IsRedacted(RespServerSession s, int i) => IsRedacted(s.Argc, j => s.Arg(j), i);

    public delegate ReadOnlySpan<byte> ArgReader(int index);

    public static bool IsRedacted(int argc, ArgReader arg, int i)
    {
        if (i <= 0 || i >= argc) return false;
        var name = arg(0);
        if (Is(name, "AUTH"u8)) return true;
        if (Is(name, "HELLO"u8))
        {
            for (int j = 2; j < argc; j++)
            {
                if (Is(arg(j), "AUTH"u8) && j + 2 < argc) { if (i == j + 1 || i == j + 2) return true; j += 2; }
                else if (Is(arg(j), "SETNAME"u8)) j++;
            }
            return false;
        }
        if (Is(name, "CONFIG"u8))
        {
            if (argc < 3 || !Is(arg(1), "SET"u8) || i < 3 || (i - 3) % 2 != 0) return false;
            var param = arg(i - 1);
            foreach (var p in s_sensitiveConfigs)
                if (Is(param, p)) return true;
            return false;
        }
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
