// LATENCY LATEST / HISTORY / RESET / GRAPH / DOCTOR / HISTOGRAM / HELP (Metrics/LatencyMonitor for events,
// Metrics/CommandStatistics for the per-command histograms), with Redis 7.2's replies and errors.
using System.Globalization;
using System.Text;
using Garnet.server.Metrics;
using Garnet.server.Session;

namespace Garnet.server.Commands;

public static class LatencyCommands
{
    public static void Latest(RespServerSession s)
    {
        var latest = s.Server.Latency.Latest();
        var w = s.Writer;
        w.WriteArrayHeader(latest.Count);
        foreach (var (evt, time, ms, max) in latest)
        {
            w.WriteArrayHeader(4);
            w.WriteBulkString(evt);
            w.WriteInteger(time);
            w.WriteInteger(ms);
            w.WriteInteger(max);
        }
    }

    public static void History(RespServerSession s)
    {
        var h = s.Server.Latency.History(s.ArgString(2));
        var w = s.Writer;
        if (h is not { } history) { w.WriteArrayHeader(0); return; }
        w.WriteArrayHeader(history.Samples.Count);
        foreach (var x in history.Samples)
        {
            w.WriteArrayHeader(2);
            w.WriteInteger(x.UnixSeconds);
            w.WriteInteger(x.Ms);
        }
    }

    public static void Reset(RespServerSession s)
    {
        var events = new List<string>();
        for (int i = 2; i < s.Argc; i++) events.Add(s.ArgString(i));
        s.Writer.WriteInteger(s.Server.Latency.Reset(events));
    }

    /// <summary>LATENCY HISTOGRAM [command ...]: per command, its calls and the cumulative counts of power-of-two µs ranges.</summary>
    public static void Histogram(RespServerSession s)
    {
        var server = s.Server;
        var chosen = new List<CommandDefinition>();
        if (s.Argc == 2) chosen.AddRange(server.Commands.AllWithSubcommands);
        else
            for (int i = 2; i < s.Argc; i++)
            {
                var name = s.ArgString(i);
                int bar = name.IndexOf('|');
                var cmd = server.Commands.Find(bar < 0 ? name : name[..bar]);
                if (cmd is null) continue;
                if (bar >= 0)
                {
                    var sub = cmd.FindSubcommand(Encoding.UTF8.GetBytes(name[(bar + 1)..]));
                    if (sub is not null) chosen.Add(sub);
                    continue;
                }
                chosen.Add(cmd);
                chosen.AddRange(cmd.Subcommands);
            }
        var rows = new List<(string name, long[] h)>();
        foreach (var c in chosen)
            if (server.CommandStats.Histogram(c.Id) is { } h && !rows.Any(r => r.name == c.FullName)) rows.Add((c.FullName, h));
        var w = s.Writer;
        w.WriteMapHeader(rows.Count);
        foreach (var (name, h) in rows)
        {
            w.WriteBulkString(name);
            w.WriteMapHeader(2);
            w.WriteBulkString("calls");
            w.WriteInteger(LatencyHistogram.Total(h));
            w.WriteBulkString("histogram_usec");
            var cdf = LatencyHistogram.PowerOfTwoCdf(h);
            w.WriteMapHeader(cdf.Count);
            foreach (var (usec, cumulative) in cdf)
            {
                w.WriteInteger(usec);
                w.WriteInteger(cumulative);
            }
        }
    }

    public static void Graph(RespServerSession s)
    {
        string evt = s.ArgString(2);
        if (s.Server.Latency.History(evt) is not { } h || h.Samples.Count == 0)
        {
            s.WriteError($"ERR No samples available for event '{evt}'");
            return;
        }
        s.Writer.WriteVerbatimString(Sparkline(evt, h.Samples, h.Max, DateTimeOffset.UtcNow.ToUnixTimeSeconds()));
    }

    /// <summary>Redis's LATENCY GRAPH text: a header, 80 dashes, then one column per sample, 4 rows high, and under each
    /// column how long ago it was (s, m, h, d), written vertically.</summary>
    internal static string Sparkline(string evt, List<LatencyMonitor.Sample> samples, long allTimeMax, long now)
    {
        long min = samples.Min(x => x.Ms), max = samples.Max(x => x.Ms);
        var sb = new StringBuilder();
        sb.Append(CultureInfo.InvariantCulture, $"{evt} - high {max} ms, low {min} ms (all time high {allTimeMax} ms)\n");
        sb.Append('-', 80).Append('\n');
        var shown = samples.TakeLast(80).ToList();
        const int rows = 4;
        for (int row = rows - 1; row >= 0; row--)
        {
            foreach (var x in shown)
            {
                double level = max == min ? rows : 1 + (x.Ms - min) * (rows - 1) / (double)(max - min);
                sb.Append(level > row + 0.5 ? '#' : level > row ? '_' : ' ');
            }
            sb.Append('\n');
        }
        var labels = shown.Select(x =>
        {
            long ago = now - x.UnixSeconds;
            return ago < 60 ? ago + "s" : ago < 3600 ? ago / 60 + "m" : ago < 86400 ? ago / 3600 + "h" : ago / 86400 + "d";
        }).ToList();
        int height = labels.Max(l => l.Length);
        for (int i = 0; i < height; i++)
        {
            foreach (var l in labels) sb.Append(i < l.Length ? l[i] : ' ');
            sb.Append('\n');
        }
        return sb.ToString();
    }

    public static void Doctor(RespServerSession s) => s.Writer.WriteVerbatimString(Report(s.Server));

    internal static string Report(RespServer server)
    {
        var monitor = server.Latency;
        var events = monitor.Events();
        if (events.Count == 0 && monitor.ThresholdMs == 0)
            return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
        if (events.Count == 0)
            return "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sleep tonight.\n";
        var sb = new StringBuilder("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
        long now = monitor.UnixSeconds();
        bool slowCommands = false, disk = false;
        int n = 0;
        foreach (var evt in events)
        {
            if (monitor.History(evt) is not { } h || h.Samples.Count == 0) continue;
            long avg = (long)h.Samples.Average(x => x.Ms);
            long mad = (long)h.Samples.Average(x => Math.Abs(x.Ms - avg));
            double period = (double)(now - h.Samples.Min(x => x.UnixSeconds)) / h.Samples.Count;
            sb.Append(CultureInfo.InvariantCulture,
                $"{++n}. {evt}: {h.Samples.Count} latency spikes (average {avg}ms, mean deviation {mad}ms, period {period:0.00} sec). Worst all time event {h.Max}ms.");
            if (evt is "command" or "fast-command")
            {
                slowCommands = true;
                sb.Append(" Check your slowlog (SLOWLOG GET) and the commands' latency (LATENCY HISTOGRAM).");
            }
            if (evt.StartsWith("aof", StringComparison.Ordinal)) disk = true;
            sb.Append('\n');
        }
        sb.Append("\nI have a few advices for you:\n\n");
        if (slowCommands)
            sb.Append(CultureInfo.InvariantCulture, $"- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n- The slowlog logs commands slower than {server.SlowLog.ThresholdUsec} microseconds (slowlog-log-slower-than).\n");
        if (disk)
            sb.Append("- SSD disks are able to reduce fsync latency. With appendfsync always every write waits for its fsync; if possible relax the fsync policy to 'everysec'.\n");
        return sb.ToString();
    }

    public static void Help(RespServerSession s) => HelpText.Write(s, "LATENCY",
    [
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
    ]);
}
