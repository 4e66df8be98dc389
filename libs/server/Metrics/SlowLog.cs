// SlowLog: Redis's slow log (SLOWLOG GET/LEN/RESET): commands that ran for at least slowlog-log-slower-than µs, newest
// first, at most slowlog-max-len entries. Entries keep Redis's shape: id, unix time, duration (µs), the arguments (at most
// 32, the last then saying how many more there were; each at most 128 bytes, then how many more bytes), client address, name.
// Invariants:
//  - The hot path only compares the duration with the threshold (ShouldLog); an entry is built only for a slow command.
//  - Ids grow by one per entry and are never reused, not even after SLOWLOG RESET (as Redis).
//  - A lock guards the list: only slow commands and SLOWLOG itself take it.
namespace Garnet.server.Metrics;

public sealed class SlowLog
{
    public const int MaxArgs = 32, MaxArgBytes = 128;

    public sealed record Entry(long Id, long UnixSeconds, long DurationUsec, byte[][] Args, string ClientAddress, string ClientName);

    private readonly LinkedList<Entry> _entries = new();
    private long _nextId;

    /// <summary>slowlog-log-slower-than in µs: negative turns the log off, 0 logs every command.</summary>
    public volatile int ThresholdUsec = 10_000;

    private volatile int _maxLen = 128;
    /// <summary>slowlog-max-len: entries kept (older ones are dropped).</summary>
    public int MaxLen
    {
        get => _maxLen;
        set { _maxLen = value; lock (_entries) Trim(); }
    }

    /// <summary>The clock of the entries (unix seconds); tests replace it.</summary>
    public Func<long> UnixSeconds { get; set; } = () => DateTimeOffset.UtcNow.ToUnixTimeSeconds();

    public bool ShouldLog(long usec)
    {
        int t = ThresholdUsec;
        return t >= 0 && usec >= t;
    }

    /// <summary>Adds an entry for a command of argc arguments read through arg. Only the first MaxArgBytes of each argument
    /// are copied: a 512 MB SET that was slow must not copy its value again.</summary>
    public void Add(int argc, Func<int, ReadOnlySpan<byte>> arg, long usec, string address, string name)
    {
        int kept = Math.Min(argc, MaxArgs);
        var args = new byte[kept][];
        for (int j = 0; j < kept; j++)
        {
            if (kept != argc && j == kept - 1)
            {
                args[j] = System.Text.Encoding.ASCII.GetBytes($"... ({argc - kept + 1} more arguments)");
                continue;
            }
            var a = arg(j);
            if (a.Length > MaxArgBytes)
            {
                var suffix = System.Text.Encoding.ASCII.GetBytes($"... ({a.Length - MaxArgBytes} more bytes)");
                var t = new byte[MaxArgBytes + suffix.Length];
                a[..MaxArgBytes].CopyTo(t);
                suffix.CopyTo(t, MaxArgBytes);
                args[j] = t;
            }
            else args[j] = a.ToArray();
        }
        lock (_entries)
        {
            _entries.AddFirst(new Entry(_nextId++, UnixSeconds(), usec, args, address, name));
            Trim();
        }
    }

    private void Trim()
    {
        while (_entries.Count > Math.Max(0, _maxLen)) _entries.RemoveLast();
    }

    public int Count { get { lock (_entries) return _entries.Count; } }

    /// <summary>The newest count entries (all when count is -1).</summary>
    public List<Entry> Newest(long count)
    {
        lock (_entries) return _entries.Take(count < 0 ? int.MaxValue : (int)Math.Min(count, int.MaxValue)).ToList();
    }

    public void Reset()
    {
        lock (_entries) _entries.Clear();
    }
}
