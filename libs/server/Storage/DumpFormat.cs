// DumpFormat: Redis's DUMP/RESTORE payload for the value types we have (strings, which include HyperLogLogs, the
// collections in their plain RDB encodings, see RdbCollections, and streams in RDB type 19, see StreamRdb):
//   [RDB type][the type's RDB encoding][RDB version, 2 bytes little-endian][CRC64 of all before, 8 bytes LE]
// The string encodings and the CRC are RdbEncoding's. We write RDB version 10 (Redis 7.0) so older servers accept our
// payloads, and accept up to 11 (Redis 7.2).
using System.Buffers;
using System.Buffers.Binary;
using Garnet.server.Persistence;

namespace Garnet.server.Storage;

public static class DumpFormat
{
    public const int WriteVersion = 10, MaxReadVersion = 11;
    private const byte TypeString = 0;

    public static byte[] Dump(ReadOnlySpan<byte> value)
    {
        var b = new ArrayBufferWriter<byte>(value.Length + 24);
        b.Write([TypeString]);
        RdbEncoding.WriteString(b, value);
        return Finish(b);
    }

    public static byte[] Dump(Garnet.server.Objects.CollectionObject value)
    {
        var b = new ArrayBufferWriter<byte>();
        RdbCollections.WriteValue(b, value);
        return Finish(b);
    }

    internal static byte[] Finish(ArrayBufferWriter<byte> b)
    {
        b.Write([(byte)(WriteVersion & 0xff), (byte)(WriteVersion >> 8)]);
        Span<byte> crc = stackalloc byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(crc, RdbEncoding.Crc64(0, b.WrittenSpan));
        b.Write(crc);
        return b.WrittenSpan.ToArray();
    }

    /// <summary>Checks footer and CRC and decodes the value (a string's bytes or a CollectionObject); null for a wrong
    /// version/checksum or unsupported data.</summary>
    public static object? Restore(ReadOnlySpan<byte> payload, out string? error)
    {
        error = "ERR DUMP payload version or checksum are wrong";
        if (payload.Length < 10) return null;
        int version = payload[^10] | (payload[^9] << 8);
        if (version > MaxReadVersion) return null;
        ulong crc = BinaryPrimitives.ReadUInt64LittleEndian(payload[^8..]);
        if (RdbEncoding.Crc64(0, payload[..^8]) != crc) return null;
        error = "ERR Bad data format";
        var body = payload[..^10];
        if (body.Length < 1) return null;
        if (StreamRdb.Reads(body[0])) return RestoreStream(body, ref error);
        if (body[0] is RdbCollections.TypeList or RdbCollections.TypeSet or RdbCollections.TypeHash or RdbCollections.TypeZSet2 or RdbCollections.TypeZSet || RdbCompact.Reads(body[0])) return RestoreCollection(body, ref error);
        if (body[0] != TypeString) return null;
        int at = 1;
        var value = RdbEncoding.ReadString(body, ref at);
        if (value is null || at != body.Length) return null;
        error = null;
        return value;
    }

    private static Garnet.server.Objects.CollectionObject? RestoreStream(ReadOnlySpan<byte> body, ref string? error)
    {
        var bytes = body.ToArray();
        int at = 1;
        try
        {
            var value = StreamRdb.Read(bytes[0],
                () => { long n = RdbEncoding.ReadLength(bytes, ref at, out bool special); return n < 0 || special ? throw new InvalidDataException() : n; },
                () => RdbEncoding.ReadULength(bytes, ref at, out ulong n) > 0 ? n : throw new InvalidDataException(),
                () => RdbEncoding.ReadString(bytes, ref at) ?? throw new InvalidDataException(),
                n =>
                {
                    if (bytes.Length - at < n) throw new InvalidDataException();
                    var raw = bytes.AsSpan(at, n).ToArray();
                    at += n;
                    return raw;
                });
            if (at != bytes.Length) return null;
            error = null;
            return value;
        }
        catch (InvalidDataException) { return null; }
    }

    private static Garnet.server.Objects.CollectionObject? RestoreCollection(ReadOnlySpan<byte> body, ref string? error)
    {
        var bytes = body.ToArray();
        int at = 1;
        try
        {
            var value = RdbCollections.Read(bytes[0],
                () => { long n = RdbEncoding.ReadLength(bytes, ref at, out bool special); return n < 0 || special ? throw new InvalidDataException() : n; },
                () => RdbEncoding.ReadString(bytes, ref at) ?? throw new InvalidDataException(),
                what => new InvalidDataException(what),
                () =>
                {
                    if (bytes.Length - at < 8) throw new InvalidDataException();
                    double d = BinaryPrimitives.ReadDoubleLittleEndian(bytes.AsSpan(at, 8));
                    at += 8;
                    return d;
                },
                () =>
                {
                    if (at >= bytes.Length) throw new InvalidDataException();
                    byte length = bytes[at++];
                    return RdbEncoding.ReadTextDouble(length, n =>
                    {
                        if (bytes.Length - at < n) throw new InvalidDataException();
                        var digits = bytes.AsSpan(at, n).ToArray();
                        at += n;
                        return digits;
                    });
                });
            if (at != bytes.Length) return null;
            error = null;
            return value;
        }
        catch (InvalidDataException) { return null; }
    }
}
