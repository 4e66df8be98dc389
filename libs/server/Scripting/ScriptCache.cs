// ScriptCache: EVAL / SCRIPT LOAD bodies by SHA1 (lower-case hex), with their shebang flags and, once compiled, the
// registry reference of the compiled function in the EVAL runtime.
// Invariants: accessed under ScriptRunner's gate; SCRIPT FLUSH clears it together with the runtime (references die
// with their state). Bodies stay until SCRIPT FLUSH, as in Redis 7.2 (no eviction).
using System.Security.Cryptography;
using System.Text;

namespace Garnet.server.Scripting;

[Flags]
public enum ScriptFlags
{
    None = 0,
    NoWrites = 1,
    AllowOom = 2,
    AllowStale = 4,
    NoCluster = 8,
    AllowCrossSlotKeys = 16,
    /// <summary>No shebang: Redis's compatibility mode (writes allowed, no flag checks).</summary>
    Compat = 1 << 10,
}

public sealed class ScriptCache
{
    public sealed class Entry
    {
        public required byte[] Body { get; init; }
        public required ScriptFlags Flags { get; init; }
        public int? Ref { get; set; }
    }

    // Concurrent: EVALSHA finds its SHA's stored string before it queues for the runtime; changes happen under the gate.
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, Entry> _scripts = new(StringComparer.Ordinal);

    public int Count => _scripts.Count;
    public long BodyBytes { get; private set; }

    public bool TryGet(string sha, out Entry entry) => _scripts.TryGetValue(sha, out entry!);

    /// <summary>Looks a SHA up as sent (any case) without making a string; sha is the stored (lower-case) key.</summary>
    public bool TryGet(ReadOnlySpan<byte> sent, out string sha, out Entry entry)
    {
        sha = "";
        entry = null!;
        if (sent.Length != 40) return false;
        Span<char> lower = stackalloc char[40];
        for (int i = 0; i < 40; i++)
        {
            byte b = sent[i];
            lower[i] = (char)(b is >= (byte)'A' and <= (byte)'Z' ? b | 0x20 : b);
        }
        return _scripts.GetAlternateLookup<ReadOnlySpan<char>>().TryGetValue(lower, out sha!, out entry!);
    }

    public void Add(string sha, Entry e)
    {
        if (_scripts.TryAdd(sha, e)) BodyBytes += e.Body.Length;
    }

    public void Clear()
    {
        _scripts.Clear();
        BodyBytes = 0;
    }

    public static string Sha1Hex(ReadOnlySpan<byte> body) => Convert.ToHexStringLower(SHA1.HashData(body));

    /// <summary>Reads a "#!lua flags=..." first line. Returns null and an error text (Redis's) when it is malformed.</summary>
    public static ScriptFlags? ParseShebang(ReadOnlySpan<byte> body, bool library, out int shebangLength, out string? name, out string? error)
    {
        shebangLength = 0;
        name = null;
        error = null;
        if (!body.StartsWith("#!"u8)) return ScriptFlags.Compat;
        int nl = body.IndexOf((byte)'\n');
        if (nl < 0) { error = "Invalid script shebang"; return null; }
        shebangLength = nl;
        var parts = Encoding.UTF8.GetString(body[..nl]).Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length == 0) { error = "Invalid engine in script shebang"; return null; }
        if (parts[0] != "#!lua") { error = "Unexpected engine in script shebang: " + parts[0]; return null; }
        var flags = ScriptFlags.None;
        for (int i = 1; i < parts.Length; i++)
        {
            if (parts[i].StartsWith("flags=", StringComparison.Ordinal))
            {
                foreach (var f in parts[i][6..].Split(',', StringSplitOptions.RemoveEmptyEntries))
                {
                    var flag = ParseFlag(f);
                    if (flag is null) { error = "Unexpected flag in script shebang: " + f; return null; }
                    flags |= flag.Value;
                }
            }
            else if (library && parts[i].StartsWith("name=", StringComparison.Ordinal))
            {
                if (name is not null) { error = "Invalid metadata value, name argument was given multiple times"; return null; }
                name = parts[i][5..];
            }
            else { error = (library ? "Invalid metadata value given: " : "Unknown lua shebang option: ") + parts[i]; return null; }
        }
        return flags;
    }

    public static ScriptFlags? ParseFlag(string f) => f switch
    {
        "no-writes" => ScriptFlags.NoWrites,
        "allow-oom" => ScriptFlags.AllowOom,
        "allow-stale" => ScriptFlags.AllowStale,
        "no-cluster" => ScriptFlags.NoCluster,
        "allow-cross-slot-keys" => ScriptFlags.AllowCrossSlotKeys,
        _ => null,
    };

    /// <summary>The body to compile: the shebang line becomes a comment, so line numbers stay.</summary>
    public static byte[] Compilable(byte[] body, int shebangLength)
    {
        if (shebangLength == 0) return body;
        var copy = (byte[])body.Clone();
        copy[0] = (byte)'-';
        copy[1] = (byte)'-';
        return copy;
    }
}
