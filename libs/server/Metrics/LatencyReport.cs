// LatencyReport: LATENCY DOCTOR's text, following Redis 7.2's report: the opening line, one numbered line per event with
// its statistics (spikes, average, mean deviation, period, worst all time), then advice paragraphs chosen by which events
// were seen (and a few settings), in Redis's order and words, or the "no spike" / "no easy fix" endings.
// Invariants: pure (everything it reads is in its arguments, the clock included); the statistics are integer ms as Redis
// computes them (average and mean deviation truncated, the period the seconds since the oldest sample, at least 1,
// divided by the number of samples).
using System.Globalization;
using System.Text;

namespace Garnet.server.Metrics;

/// <summary>What the advice depends on besides the events.</summary>
public readonly record struct LatencyReportSettings(int ThresholdMs, long SlowLogUsec, bool FsyncAlways, int Hz, long AnonHugePagesBytes);

public static class LatencyReport
{
    [Flags]
    private enum Advice
    {
        None = 0, SlowLogEnable = 1 << 0, SlowLogTuning = 1 << 1, SlowLogInspect = 1 << 2, Scheduler = 1 << 3, LocalDisk = 1 << 4,
        Ssd = 1 << 5, DataWriteback = 1 << 6, DiskContention = 1 << 7, NoAppendFsync = 1 << 8, RelaxFsync = 1 << 9,
        WriteLoad = 1 << 10, Hz = 1 << 11, LargeObjects = 1 << 12, MassEviction = 1 << 13, DisableThp = 1 << 14,
    }

    /// <summary>The report for the events (name, samples oldest first, all-time high) at unix time now.</summary>
    public static string Render(IReadOnlyList<(string Event, IReadOnlyList<LatencyMonitor.Sample> Samples, long Max)> events,
        LatencyReportSettings settings, long now)
    {
        if (events.Count == 0 && settings.ThresholdMs == 0)
            return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
        var sb = new StringBuilder();
        var advice = Advice.None;
        int count = 0; // how many pieces of advice were counted, as Redis counts them (some may print nothing)
        int n = 0;
        foreach (var (evt, samples, worst) in events)
        {
            if (++n == 1) sb.Append("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
            long sum = 0, oldest = 0;
            foreach (var x in samples)
            {
                sum += x.Ms;
                if (oldest == 0 || x.UnixSeconds < oldest) oldest = x.UnixSeconds;
            }
            long avg = samples.Count == 0 ? 0 : sum / samples.Count;
            long mad = samples.Count == 0 ? 0 : samples.Sum(x => Math.Abs(avg - x.Ms)) / samples.Count;
            long period = samples.Count == 0 ? 0 : Math.Max(1, now - oldest);
            sb.Append(CultureInfo.InvariantCulture,
                $"{n}. {evt}: {samples.Count} latency spikes (average {avg}ms, mean deviation {mad}ms, period {(double)period / samples.Count:0.00} sec). Worst all time event {worst}ms.\n");
            count += Keyed(evt.ToLowerInvariant(), settings, ref advice);
        }
        if (settings.AnonHugePagesBytes > 0) { advice |= Advice.DisableThp; count++; }
        if (n == 0 && count == 0)
            return sb.Append("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n").ToString();
        if (count == 0)
            return sb.Append("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n").ToString();
        sb.Append("\nI have a few advices for you:\n\n");
        Paragraphs(sb, advice, settings);
        return sb.ToString();
    }

    /// <summary>The advice an event calls for; returns how much Redis counts for it.</summary>
    private static int Keyed(string evt, LatencyReportSettings s, ref Advice a)
    {
        switch (evt)
        {
            case "command":
                int extra = 0;
                if (s.SlowLogUsec < 0) { a |= Advice.SlowLogEnable; extra = 1; }
                else if (s.SlowLogUsec / 1000 > s.ThresholdMs) { a |= Advice.SlowLogTuning; extra = 1; }
                a |= Advice.SlowLogInspect | Advice.LargeObjects;
                return extra + 2;
            case "fast-command": a |= Advice.Scheduler; return 1;
            case "aof-write-pending-fsync": a |= Advice.LocalDisk | Advice.DiskContention | Advice.Ssd | Advice.DataWriteback; return 4;
            case "aof-write-active-child": a |= Advice.NoAppendFsync | Advice.DataWriteback | Advice.Ssd; return 3;
            case "aof-write-alone": a |= Advice.LocalDisk | Advice.DataWriteback | Advice.Ssd; return 3;
            case "aof-fsync-always": a |= Advice.RelaxFsync; return 1;
            case "aof-fstat" or "rdb-unlink-temp-file": a |= Advice.DiskContention | Advice.LocalDisk; return 2;
            case "aof-rewrite-diff-write" or "aof-rename": a |= Advice.WriteLoad | Advice.DataWriteback | Advice.Ssd | Advice.LocalDisk; return 4;
            case "expire-cycle": a |= Advice.Hz | Advice.LargeObjects; return 2;
            case "eviction-del": a |= Advice.LargeObjects; return 1;
            case "eviction-cycle": a |= Advice.MassEviction; return 1;
            default: return 0;
        }
    }

    private static void Paragraphs(StringBuilder sb, Advice a, LatencyReportSettings s)
    {
        long suggestedUsec = (long)s.ThresholdMs * 1000;
        if (a.HasFlag(Advice.SlowLogEnable))
            sb.Append(CultureInfo.InvariantCulture, $"- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than {suggestedUsec}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n");
        if (a.HasFlag(Advice.SlowLogTuning))
            sb.Append(CultureInfo.InvariantCulture, $"- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than {suggestedUsec}'.\n");
        if (a.HasFlag(Advice.SlowLogInspect))
            sb.Append("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
        if (a.HasFlag(Advice.Scheduler))
            sb.Append("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n")
              .Append("  1) Lower the system load.\n")
              .Append("  2) Use a computer / VM just for Redis if you are running other software in the same system.\n")
              .Append("  3) Check if you have a \"noisy neighbour\" problem.\n")
              .Append("  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n")
              .Append("  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
        if (a.HasFlag(Advice.LocalDisk))
            sb.Append("- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n");
        if (a.HasFlag(Advice.Ssd))
            sb.Append("- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n");
        if (a.HasFlag(Advice.DataWriteback))
            sb.Append("- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n");
        if (a.HasFlag(Advice.DiskContention))
            sb.Append("- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n");
        if (a.HasFlag(Advice.NoAppendFsync))
            sb.Append("- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n");
        if (a.HasFlag(Advice.RelaxFsync) && s.FsyncAlways)
            sb.Append("- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n");
        if (a.HasFlag(Advice.WriteLoad))
            sb.Append("- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n");
        if (a.HasFlag(Advice.Hz) && s.Hz < 100)
            sb.Append("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
        if (a.HasFlag(Advice.LargeObjects))
            sb.Append("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
        if (a.HasFlag(Advice.MassEviction))
            sb.Append("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
        if (a.HasFlag(Advice.DisableThp))
            sb.Append("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n");
    }

    /// <summary>The process's anonymous huge pages in bytes (Linux /proc/self/smaps_rollup; 0 elsewhere or unreadable).</summary>
    public static long AnonHugePagesBytes()
    {
        try
        {
            foreach (var line in File.ReadLines("/proc/self/smaps_rollup"))
                if (line.StartsWith("AnonHugePages:", StringComparison.Ordinal)
                    && long.TryParse(line.AsSpan(14).Trim().TrimEnd("kB").Trim(), out long kb))
                    return kb * 1024;
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return 0;
    }
}
