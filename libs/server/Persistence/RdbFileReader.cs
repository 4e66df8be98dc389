// RdbFileReader: reads an RDB file (ours, or Redis's with string values only), streaming, and checks it whole.
// Invariants:
//  - Read either reaches EOF with a matching CRC-64 (or a stored CRC of 0: checksums off, as Redis allows) and no
//    trailing bytes, or throws InvalidDataException saying what is wrong and at which offset.
//  - Entries are handed out as they are parsed, so a caller that must not act on a bad file reads it twice: once
//    without a callback (validation), then with one.
//  - The buffer holds at most one item beyond what has been read (it grows only for large values).
using System.Buffers.Binary;
using System.Text;

namespace Garnet.server.Persistence;

public readonly record struct RdbEntry(int Db, byte[] Key, byte[] Value, long ExpirationMs);

public sealed class RdbFileReader : IDisposable
{
    public const int MaxVersion = 11;
    private const int MaxBuffer = 1 << 30;

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

    public Dictionary<string, string> Aux { get; } = new();
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
                    var value = TakeString();
                    Keys++;
                    onEntry?.Invoke(new RdbEntry(db, key, value, expiration));
                    expiration = 0;
                    if (progress is not null && Offset >= nextProgress) { progress(Offset); nextProgress = Offset + (64 << 20); }
                    break;
                }
                default:
                    throw Bad($"value type {op} is not supported (this server stores strings only so far)", Offset - 1);
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
