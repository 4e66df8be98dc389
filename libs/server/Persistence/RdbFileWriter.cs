// RdbFileWriter: writes a checkpoint as an RDB file in Redis's format (version 10, the one Redis 7.0 reads), so the
// files also load into Redis:
//   "REDIS0010", AUX fields (0xFA key value), then per key: [SELECTDB 0xFE db when the database changes]
//   [EXPIRETIME_MS 0xFC 8 bytes LE] [type 0 = string] key value, then EOF 0xFF and the CRC-64 of everything before it
//   (8 bytes LE).
// Invariants: the file is written under a temporary name and is complete and fsynced when Finish returns; the CRC
// covers every byte before the trailer. One writer per file, one thread. The buffer holds at most about 1 MB: values
// larger than that are written to the file straight from the caller's memory.
using System.Buffers;
using System.Buffers.Binary;
using System.Text;

namespace Garnet.server.Persistence;

public sealed class RdbFileWriter : IDisposable
{
    public const int Version = 10;
    public const byte OpAux = 0xFA, OpResizeDb = 0xFB, OpExpireMs = 0xFC, OpExpireSeconds = 0xFD, OpSelectDb = 0xFE, OpEof = 0xFF;
    public const byte OpIdle = 0xF8, OpFreq = 0xF9, OpModuleAux = 0xF7, OpFunction2 = 0xF5;
    public const byte TypeString = 0;
    private const int SpillBytes = 1 << 20;

    private readonly FileStream _file;
    private readonly ArrayBufferWriter<byte> _buffer = new(SpillBytes + 64 * 1024);
    private ulong _crc;
    private int _db = -1;

    public RdbFileWriter(string path)
    {
        _file = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize: 0);
        _buffer.Write("REDIS"u8);
        _buffer.Write(Encoding.ASCII.GetBytes(Version.ToString("D4")));
    }

    public long Keys { get; private set; }
    public long Bytes => _file.Position + _buffer.WrittenCount;

    public void WriteAux(string key, string value)
    {
        _buffer.Write([OpAux]);
        RdbEncoding.WriteString(_buffer, Encoding.UTF8.GetBytes(key));
        RdbEncoding.WriteString(_buffer, Encoding.UTF8.GetBytes(value));
    }

    /// <summary>A function library (Redis's RDB_OPCODE_FUNCTION2: the library's code as a string).</summary>
    public void WriteFunction(ReadOnlySpan<byte> code)
    {
        _buffer.Write([OpFunction2]);
        RdbEncoding.WriteString(_buffer, code);
    }

    private void WriteKeyPrefix(int db, long expirationMs)
    {
        if (db != _db)
        {
            _buffer.Write([OpSelectDb]);
            RdbEncoding.WriteLength(_buffer, db);
            _db = db;
        }
        if (expirationMs != 0)
        {
            var s = _buffer.GetSpan(9);
            s[0] = OpExpireMs;
            BinaryPrimitives.WriteInt64LittleEndian(s[1..], expirationMs);
            _buffer.Advance(9);
        }
    }

    /// <summary>A collection key, in Redis's plain encoding of its type (RdbCollections).</summary>
    public void WriteCollection(int db, ReadOnlySpan<byte> key, Garnet.server.Objects.CollectionObject value, long expirationMs)
    {
        WriteKeyPrefix(db, expirationMs);
        RdbCollections.Write(_buffer, key, value, () => { if (_buffer.WrittenCount >= SpillBytes) Spill(); });
        Keys++;
        if (_buffer.WrittenCount >= SpillBytes) Spill();
    }

    public void WriteString(int db, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expirationMs)
    {
        WriteKeyPrefix(db, expirationMs);
        _buffer.Write([TypeString]);
        RdbEncoding.WriteString(_buffer, key);
        if (value.Length > SpillBytes)
        {
            // A large value goes from its own memory to the file: the buffer never grows to hold it.
            RdbEncoding.WriteLength(_buffer, value.Length);
            Spill();
            _crc = RdbEncoding.Crc64(_crc, value);
            _file.Write(value);
        }
        else RdbEncoding.WriteString(_buffer, value);
        Keys++;
        if (_buffer.WrittenCount >= SpillBytes) Spill();
    }

    /// <summary>Writes EOF and the checksum, and makes the file durable.</summary>
    public void Finish()
    {
        _buffer.Write([OpEof]);
        Spill();
        Span<byte> crc = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(crc, _crc);
        _file.Write(crc);
        _file.Flush(flushToDisk: true);
    }

    private void Spill()
    {
        _crc = RdbEncoding.Crc64(_crc, _buffer.WrittenSpan);
        _file.Write(_buffer.WrittenSpan);
        _buffer.ResetWrittenCount();
    }

    public void Dispose() => _file.Dispose();
}
