// MonitorFeed: the clients in MONITOR mode and the lines they are sent, in Redis's format:
//   +<unix seconds>.<microseconds> [<db> <ip:port>|lua|unix:<path>] "arg" "arg" ...\r\n
// Invariants:
//  - A command is fed after it ran (so the db is the one it left selected, as Redis's call() does), once, and only when
//    it was admitted (unknown commands, arity errors and refused commands are not fed). Scripts (EVAL, EVALSHA, FCALL and
//    their _RO forms) are fed before they run, so the commands they call ("[db lua]") come after them, as in Redis.
//  - Commands flagged admin or skip_monitor are never fed; secrets (AUTH's arguments, HELLO's AUTH user and password,
//    ...: Metrics/ArgumentRedaction) are shown as "(redacted)".
//  - With no monitor, feeding costs one volatile read (Count).
//  - Lines go to other monitors as pushes (their pending bytes are bounded by client-output-buffer-limit's pubsub
//    class; past it the monitor is disconnected), and to the feeding client itself after its reply.
using System.Globalization;
using System.Text;
using Garnet.server.Commands;
using Garnet.server.Session;

namespace Garnet.server.Clients;

public sealed class MonitorFeed
{
    private readonly object _lock = new();
    private RespServerSession[] _monitors = [];

    /// <summary>Number of monitoring clients (a volatile read).</summary>
    public int Count => Volatile.Read(ref _monitors).Length;

    public void Add(RespServerSession s)
    {
        lock (_lock)
        {
            if (Array.IndexOf(_monitors, s) >= 0) return;
            Volatile.Write(ref _monitors, [.. _monitors, s]);
        }
    }

    public void Remove(RespServerSession s)
    {
        lock (_lock)
        {
            if (Array.IndexOf(_monitors, s) < 0) return;
            Volatile.Write(ref _monitors, _monitors.Where(m => m != s).ToArray());
        }
    }

    /// <summary>Whether cmd is shown to monitors at all.</summary>
    public static bool Shows(CommandDefinition cmd)
    {
        return (cmd.Flags & (CommandFlags.Admin | CommandFlags.SkipMonitor)) == 0 || IsScriptCall(cmd);
    }

    /// <summary>EVAL, EVALSHA, FCALL and their _RO forms (declared RunsScript): flagged skip_monitor but fed by themselves
    /// before they run.</summary>
    public static bool IsScriptCall(CommandDefinition cmd) => cmd.RunsScript;

    /// <summary>Sends the line for the command session is running (its current arguments) to every monitor.</summary>
    public void Feed(RespServerSession session, bool fromScript)
    {
        var monitors = Volatile.Read(ref _monitors);
        if (monitors.Length == 0) return;
        var line = Format(session, fromScript, session.Database);
        foreach (var m in monitors)
        {
            if (m == session) session.WriteMonitorLineToSelf(line);
            else if (m.Connection.PushDeferred(line, out bool mustSend) && mustSend) session.PushedTo(m.Connection);
        }
    }

    public static byte[] Format(RespServerSession s, bool fromScript, int db)
    {
        var sb = new StringBuilder(64);
        long ticks = DateTime.UtcNow.Ticks - DateTime.UnixEpoch.Ticks;
        sb.Append('+').Append((ticks / TimeSpan.TicksPerSecond).ToString(CultureInfo.InvariantCulture)).Append('.')
          .Append((ticks % TimeSpan.TicksPerSecond / 10).ToString("D6", CultureInfo.InvariantCulture)).Append(" [")
          .Append(db.ToString(CultureInfo.InvariantCulture)).Append(' ');
        if (fromScript) sb.Append("lua");
        else if (s.Connection.RemoteEndPoint is { } ep) sb.Append(ClientCommands.FormatEndPoint(ep));
        else sb.Append("unix:").Append(Config.ConfigParameters.Find("unixsocket")?.Get(s.Server) ?? "");
        sb.Append("] ");
        int argc = s.Argc;
        for (int i = 0; i < argc; i++)
        {
            if (i > 0) sb.Append(' ');
            if (Metrics.ArgumentRedaction.IsRedacted(s, i)) sb.Append("\"(redacted)\"");
            else AppendRepr(sb, s.Arg(i));
        }
        sb.Append("\r\n");
        return Encoding.UTF8.GetBytes(sb.ToString());
    }

    /// <summary>Redis's sdscatrepr: quoted, with \\ \" \n \r \t \a \b escaped and other unprintable bytes as \xhh.</summary>
    public static void AppendRepr(StringBuilder sb, ReadOnlySpan<byte> arg)
    {
        sb.Append('"');
        foreach (byte b in arg)
        {
            switch (b)
            {
                case (byte)'\\': sb.Append("\\\\"); break;
                case (byte)'"': sb.Append("\\\""); break;
                case (byte)'\n': sb.Append("\\n"); break;
                case (byte)'\r': sb.Append("\\r"); break;
                case (byte)'\t': sb.Append("\\t"); break;
                case 7: sb.Append("\\a"); break;
                case 8: sb.Append("\\b"); break;
                default:
                    if (b >= 0x20 && b < 0x7f) sb.Append((char)b);
                    else sb.Append("\\x").Append(b.ToString("x2", CultureInfo.InvariantCulture));
                    break;
            }
        }
        sb.Append('"');
    }
}
