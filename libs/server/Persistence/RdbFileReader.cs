// RdbFileReader: reads an RDB file (ours, or Redis's with string values only), streaming, and checks it whole.
// Invariants:
//  - Read either reaches EOF with a matching CRC-64 (or a stored CRC of 0: checksums off, as Redis allows) and no
//    trailing bytes, or throws InvalidDataException saying what is wrong and at which offset.
//  - Entries are handed out as they are parsed, so a caller that must not act on a bad file reads it twice: once
//    without a callback (validation), then with one.
//  - The buffer holds at most one item beyond what has been read. A plain (not LZF) string value of more than
//    LargeString bytes is read from the file straight into an array of its own (LargeStringHeadroom spare bytes in
//    front, for a consumer that adopts the array), in chunks that enter the CRC as they arrive: one copy of the value
//    exists, and the buffer does not grow for it. The buffer grows only for large LZF strings.
//  - With SkipValues (a validation pass), plain string values are checked and enter the CRC but are not kept (entries
//    carry an empty Value): nothing the size of a value is allocated.
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using System.Text;

namespace Garnet.server.Persistence;

/// <summary>One key: a string (Value, which may be a slice of a larger array, see RdbFileReader.LargeStringHeadroom) or a
/// collection (Collection; null for a string).</summary>
public readonly record struct RdbEntry(int Db, byte[] Key, ReadOnlyMemory<byte> Value, long ExpirationMs, Garnet.server.Objects.CollectionObject? Collection = null)
{
    /// <summary>The array behind a value read with headroom: Value is array[headroom..], the whole rest of it; else null.</summary>
    public byte[]? ValueArrayWithHeadroom(int headroom) =>
        headroom > 0 && MemoryMarshal.TryGetArray(Value, out var seg) && seg.Array is { } a && seg.Offset == headroom && seg.Count == a.Length - headroom
            ? a : null;
}

public sealed class RdbFileReader : IDisposable
{
    public const int MaxVersion = 11;
    private const int MaxBuffer = 1 << 30;
    /// <summary>Plain string values longer than this are read straight into their own array.</summary>
    public const int LargeString = 1 << 20;
    private const int DirectChunk = 16 << 20;

    private readonly FileStream _file;
    private readonly string _path;
    private byte[] _buf = new byte[1 << 20];
    private int _pos, _end;
    private long _consumedBefore; // file offset of _buf[0]
    private bool _eof;
    private ulong _crc;

    public RdbFileReader(string path)
    {
        _path = path;
        _file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, bufferSize: 0);
    }

    /// <summary>Spare bytes in front of a large string value's array (the value is the rest of the array).</summary>
    public int LargeStringHeadroom { get; init; }

    /// <summary>Check plain string values without keeping them (entries get an empty Value).</summary>
    public bool SkipValues { get; init; }

    public Dictionary<string, string> Aux { get; } = new();

    /// <summary>The function libraries' code (RDB_OPCODE_FUNCTION2 records), in file order.</summary>
    public List<byte[]> Functions { get; } = new();
    public long Keys { get; private set; }
    public long Length => _file.Length;
    public long Offset => _consumedBefore + _pos;

    /// <summary>The AUX fields at the start of a file (empty when it cannot be read).</summary>
    public static Dictionary<string, string> ReadAux(string path)
    {
        try
        {
            using var r = new RdbFileReader(path);
            r.Take(9);
            while (r.Take(1)[0] == RdbFileWriter.OpAux)
            {
                var k = r.TakeString();
                var v = r.TakeString();
                r.Aux[Encoding.UTF8.GetString(k)] = Encoding.UTF8.GetString(v);
                r.Consume();
            }
            return r.Aux;
        }
        catch (Exception ex) when (ex is IOException or InvalidDataException) { return new(); }
    }

    /// <summary>Parses the whole file; onEntry (if any) gets each key. Throws InvalidDataException for a bad file.</summary>
    public void Read(Action<RdbEntry>? onEntry, Action<long>? progress = null)
    {
        var header = Take(9);
        if (!header[..5].SequenceEqual("REDIS"u8) || !int.TryParse(Encoding.ASCII.GetString(header[5..]), out int version))
            throw Bad("not an RDB file (no REDIS header)");
        if (version < 1 || version > MaxVersion) throw Bad($"RDB version {version} is not supported (at most {MaxVersion})");
        int db = 0;
        long expiration = 0;
        long nextProgress = 1 << 20;
        while (true)
        {
            byte op = Take(1)[0];
            switch (op)
            {
                case RdbFileWriter.OpEof:
                    Consume();
                    VerifyTrailer();
                    return;
                case RdbFileWriter.OpAux:
                {
                    var k = TakeString();
                    var v = TakeString();
                    Aux[Encoding.UTF8.GetString(k)] = Encoding.UTF8.GetString(v);
                    break;
                }
                case RdbFileWriter.OpFunction2:
                    Functions.Add(TakeString().ToArray());
                    break;
                case RdbFileWriter.OpSelectDb:
                    db = (int)Math.Min(TakeLength(), int.MaxValue);
                    break;
                case RdbFileWriter.OpResizeDb:
                    TakeLength();
                    TakeLength();
                    break;
                case RdbFileWriter.OpExpireMs:
                    expiration = BinaryPrimitives.ReadInt64LittleEndian(Take(8));
                    break;
                case RdbFileWriter.OpExpireSeconds:
                    expiration = BinaryPrimitives.ReadInt32LittleEndian(Take(4)) * 1000L;
                    break;
                case RdbFileWriter.OpIdle:
                    TakeLength();
                    break;
                case RdbFileWriter.OpFreq:
                    Take(1);
                    break;
                case RdbFileWriter.TypeString:
                {
                    var key = TakeString();
                    var value = TakeValue();
                    Keys++;
                    onEntry?.Invoke(new RdbEntry(db, key, value, expiration));
                    expiration = 0;
                    if (progress is not null && Offset >= nextProgress) { progress(Offset); nextProgress = Offset + (64 << 20); }
                    break;
                }
                case RdbCollections.TypeList:
                case RdbCollections.TypeSet:
                case RdbCollections.TypeHash:
                case RdbCollections.TypeZSet2:
                case RdbCollections.TypeZSet:
                {
                    var key = TakeString();
                    var collection = RdbCollections.Read(op, TakeLength, TakeString, what => Bad(what), () => BinaryPrimitives.ReadDoubleLittleEndian(Take(8)),
                        () =>
                        {
                            try { return RdbEncoding.ReadTextDouble(Take(1)[0], n => Take(n).ToArray()); }
                            catch (InvalidDataException ex) { throw Bad(ex.Message); }
                        });
                    Keys++;
                    onEntry?.Invoke(new RdbEntry(db, key, ReadOnlyMemory<byte>.Empty, expiration, SkipValues ? null : collection));
                    expiration = 0;
                    break;
                }
                case var stream when StreamRdb.Reads(stream):
                {
                    var key = TakeString();
                    Garnet.server.Objects.StreamObject value;
                    try { value = StreamRdb.Read(op, TakeLength, TakeULength, TakeString, n => Take(n).ToArray()); }
                    catch (InvalidDataException ex) { throw Bad(ex.Message); }
                    Keys++;
                    onEntry?.Invoke(new RdbEntry(db, key, ReadOnlyMemory<byte>.Empty, expiration, SkipValues ? null : value));
                    expiration = 0;
                    break;
                }
                case var compact when RdbCompact.Reads(compact):
                {
                    var key = TakeString();
                    var collection = RdbCollections.Read(op, TakeLength, TakeString, what => Bad(what));
                    Keys++;
                    onEntry?.Invoke(new RdbEntry(db, key, ReadOnlyMemory<byte>.Empty, expiration, SkipValues ? null : collection));
                    expiration = 0;
                    break;
                }
                default:
                    throw Bad($"value type {op} is not supported (this server reads strings, lists, sets, hashes, sorted sets and streams)", Offset - 1);
            }
            Consume();
        }
    }

    // ---- buffered access; bytes between the last Consume() and _pos are the item being parsed ----

    private int _itemStart;

    /// <summary>Marks everything parsed so far as read (it enters the CRC).</summary>
    private void Consume()
    {
        _crc = RdbEncoding.Crc64(_crc, _buf.AsSpan(_itemStart, _pos - _itemStart));
        _itemStart = _pos;
    }

    private ReadOnlySpan<byte> Take(int n)
    {
        while (_end - _pos < n) Fill();
        var s = _buf.AsSpan(_pos, n);
        _pos += n;
        return s;
    }

    private long TakeLength()
    {
        while (true)
        {
            int at = _pos;
            long n = RdbEncoding.ReadLength(_buf.AsSpan(0, _end), ref at, out bool special);
            if (n >= 0)
            {
                if (special) throw Bad("a length was expected");
                _pos = at;
                return n;
            }
            if (_end - _pos >= 9) throw Bad("invalid length");
            Fill();
        }
    }

    private ulong TakeULength()
    {
        while (true)
        {
            int at = _pos;
            int r = RdbEncoding.ReadULength(_buf.AsSpan(0, _end), ref at, out ulong n);
            if (r > 0) { _pos = at; return n; }
            if (r < 0) throw Bad("a length was expected");
            if (_end - _pos >= 9) throw Bad("invalid length");
            Fill();
        }
    }

    private byte[] TakeString()
    {
        while (true)
        {
            int at = _pos;
            var v = RdbEncoding.ReadString(_buf.AsSpan(0, _end), ref at);
            if (v is not null) { _pos = at; return v; }
            Fill(); // incomplete (or invalid: then the file ends or the buffer limit is hit first)
        }
    }

    /// <summary>A string value: large plain ones (and, with SkipValues, all plain ones) bypass TakeString's copy.</summary>
    private ReadOnlyMemory<byte> TakeValue()
    {
        while (true)
        {
            int at = _pos;
            long n = RdbEncoding.ReadLength(_buf.AsSpan(0, _end), ref at, out bool special);
            if (n < 0)
            {
                if (_end - _pos >= 9) throw Bad("invalid length");
                Fill();
                continue;
            }
            if (special || (n <= LargeString && !SkipValues)) return TakeString();
            if (n > Array.MaxLength - LargeStringHeadroom) throw Bad($"a string of {n} bytes");
            _pos = at;
            return TakeDirect((int)n);
        }
    }

    /// <summary>Reads n bytes of string at _pos into an array of their own (null with SkipValues), bypassing the buffer.</summary>
    private ReadOnlyMemory<byte> TakeDirect(int n)
    {
        Consume(); // the item's bytes before the string (type, key, length) enter the CRC
        byte[]? target = SkipValues ? null : GC.AllocateUninitializedArray<byte>(n + LargeStringHeadroom);
        int have = Math.Min(n, _end - _pos);
        if (target is not null) _buf.AsSpan(_pos, have).CopyTo(target.AsSpan(LargeStringHeadroom));
        _pos += have;
        Consume();
        int done = have;
        if (done < n)
        {
            // The buffer is used up: drop it and read the rest from the file.
            _consumedBefore += _end;
            _pos = _end = _itemStart = 0;
        }
        while (done < n)
        {
            int want = Math.Min(n - done, target is null ? _buf.Length : DirectChunk);
            var into = target is null ? _buf.AsSpan(0, want) : target.AsSpan(LargeStringHeadroom + done, want);
            int r = _file.Read(into);
            if (r <= 0)
            {
                _eof = true;
                throw Bad("the file ends in the middle of an item (truncated?)", _consumedBefore);
            }
            _crc = RdbEncoding.Crc64(_crc, into[..r]);
            _consumedBefore += r;
            done += r;
        }
        return target is null ? ReadOnlyMemory<byte>.Empty : target.AsMemory(LargeStringHeadroom, n);
    }

    /// <summary>Reads more of the file, keeping the current item's bytes; throws at the end of the file.</summary>
    private void Fill()
    {
        if (_eof) throw Bad("the file ends in the middle of an item (truncated?)", Offset);
        if (_itemStart > 0)
        {
            Buffer.BlockCopy(_buf, _itemStart, _buf, 0, _end - _itemStart);
            _consumedBefore += _itemStart;
            _pos -= _itemStart;
            _end -= _itemStart;
            _itemStart = 0;
        }
        if (_end == _buf.Length)
        {
            if (_buf.Length >= MaxBuffer) throw Bad("an item larger than 1 GB", Offset);
            Array.Resize(ref _buf, _buf.Length * 2);
        }
        int n = _file.Read(_buf, _end, _buf.Length - _end);
        if (n == 0) _eof = true;
        _end += n;
    }

    private void VerifyTrailer()
    {
        var trailer = Take(8);
        ulong stored = BinaryPrimitives.ReadUInt64LittleEndian(trailer);
        if (stored != 0 && stored != _crc) throw Bad($"checksum mismatch (stored {stored:x16}, computed {_crc:x16})");
        _itemStart = _pos;
        if (_end > _pos || _file.Read(new byte[1], 0, 1) > 0) throw Bad("bytes after the end of the data");
    }

    private InvalidDataException Bad(string what, long? offset = null) =>
        new($"{Path.GetFileName(_path)}: {what} at offset {offset ?? Offset}");

    public void Dispose() => _file.Dispose();
}
