// HyperLogLog: Redis's HLL string format and algorithms, so values move between our server and Redis unchanged.
// Layout: "HYLL", encoding (0 dense, 1 sparse), 3 unused bytes, 8 bytes of cached cardinality (little-endian; the top
// bit of the last byte set = not valid), then the registers. 16384 registers of 6 bits. Dense: 12288 bytes, register
// n at bit n*6 (low bits first). Sparse: opcodes ZERO 00xxxxxx (xxxxxx+1 zero registers), XZERO 01xxxxxx yyyyyyyy
// (up to 16384 zeros), VAL 1vvvvvxx (xx+1 registers of value vvvvv+1). A sparse value turns dense when a register
// exceeds 32 or the sparse form passes 3000 bytes (Redis's hll-sparse-max-bytes default).
// Elements hash with MurmurHash64A (seed 0xadc83b19); the estimate is Redis's (Ertl's improved estimator).
namespace Garnet.server.Storage;

public static class HyperLogLog
{
    public const int P = 14, Q = 64 - P, Registers = 1 << P, Bits = 6, RegisterMax = 63;
    public const int HeaderSize = 16, DenseSize = HeaderSize + (Registers * Bits + 7) / 8;
    public const int SparseMaxBytes = 3000;
    private const byte Dense = 0, Sparse = 1;
    public const string NotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    public const string Corrupt = "INVALIDOBJ Corrupted HLL object detected";

    public static bool IsValid(ReadOnlySpan<byte> v)
    {
        if (v.Length < HeaderSize || v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L') return false;
        if (v[4] == Dense) return v.Length == DenseSize;
        return v[4] == Sparse;
    }

    public static byte[] NewSparse()
    {
        var v = new byte[HeaderSize + 2];
        "HYLL"u8.CopyTo(v);
        v[4] = Sparse;
        // XZERO covering all registers: 01 111111 11111111.
        v[HeaderSize] = 0x7f;
        v[HeaderSize + 1] = 0xff;
        return v;
    }

    public static ulong Murmur64A(ReadOnlySpan<byte> key, uint seed = 0xadc83b19)
    {
        const ulong m = 0xc6a4a7935bd1e995;
        const int r = 47;
        ulong h = seed ^ ((ulong)key.Length * m);
        int blocks = key.Length & ~7;
        for (int i = 0; i < blocks; i += 8)
        {
            ulong k = BitConverter.ToUInt64(key.Slice(i, 8));
            k *= m; k ^= k >> r; k *= m;
            h ^= k; h *= m;
        }
        var tail = key[blocks..];
        if (tail.Length > 0)
        {
            for (int i = tail.Length - 1; i >= 0; i--) h ^= (ulong)tail[i] << (8 * i);
            h *= m;
        }
        h ^= h >> r; h *= m; h ^= h >> r;
        return h;
    }

    /// <summary>Register index and run length ("count") of an element, as Redis's hllPatLen.</summary>
    public static (int index, int count) PatLen(ReadOnlySpan<byte> element)
    {
        ulong hash = Murmur64A(element);
        int index = (int)(hash & (Registers - 1));
        hash >>= P;
        hash |= 1UL << Q;
        int count = 1;
        ulong bit = 1;
        while ((hash & bit) == 0) { count++; bit <<= 1; }
        return (index, count);
    }

    /// <summary>All 16384 registers of a valid HLL value (false: corrupt sparse data).</summary>
    public static bool TryRegisters(ReadOnlySpan<byte> v, byte[] registers)
    {
        if (v[4] == Dense)
        {
            var d = v[HeaderSize..];
            for (int n = 0; n < Registers; n++) registers[n] = GetDense(d, n);
            return true;
        }
        int reg = 0;
        var s = v[HeaderSize..];
        for (int i = 0; i < s.Length; i++)
        {
            byte b = s[i];
            if ((b & 0xc0) == 0) { int run = (b & 0x3f) + 1; if (reg + run > Registers) return false; registers.AsSpan(reg, run).Clear(); reg += run; }
            else if ((b & 0xc0) == 0x40)
            {
                if (i + 1 >= s.Length) return false;
                int run = (((b & 0x3f) << 8) | s[++i]) + 1;
                if (reg + run > Registers) return false;
                registers.AsSpan(reg, run).Clear();
                reg += run;
            }
            else
            {
                int value = ((b >> 2) & 0x1f) + 1, run = (b & 3) + 1;
                if (reg + run > Registers) return false;
                registers.AsSpan(reg, run).Fill((byte)value);
                reg += run;
            }
        }
        return reg == Registers;
    }

    private static byte GetDense(ReadOnlySpan<byte> d, int n)
    {
        int bit = n * Bits, b = bit >> 3, fb = bit & 7;
        int b0 = d[b], b1 = b + 1 < d.Length ? d[b + 1] : 0;
        return (byte)(((b0 >> fb) | (b1 << (8 - fb))) & RegisterMax);
    }

    private static void SetDense(Span<byte> d, int n, int value)
    {
        int bit = n * Bits, b = bit >> 3, fb = bit & 7;
        d[b] = (byte)((d[b] & ~(RegisterMax << fb)) | (value << fb));
        if (b + 1 < d.Length) d[b + 1] = (byte)((d[b + 1] & ~(RegisterMax >> (8 - fb))) | (value >> (8 - fb)));
    }

    /// <summary>Encodes registers: sparse when every value fits (≤ 32) and the result stays small enough, else dense.</summary>
    public static byte[] Encode(byte[] registers, bool preferSparse)
    {
        if (preferSparse && TryEncodeSparse(registers, out var sparse)) return sparse;
        var v = new byte[DenseSize];
        "HYLL"u8.CopyTo(v);
        v[4] = Dense;
        InvalidateCache(v);
        for (int n = 0; n < Registers; n++) if (registers[n] != 0) SetDense(v.AsSpan(HeaderSize), n, registers[n]);
        return v;
    }

    private static bool TryEncodeSparse(byte[] registers, out byte[] value)
    {
        var ops = new List<byte>();
        int i = 0;
        while (i < Registers)
        {
            int v = registers[i];
            if (v > 32) { value = []; return false; }
            int run = 1;
            while (i + run < Registers && registers[i + run] == v) run++;
            if (v == 0)
            {
                int left = run;
                while (left > 0)
                {
                    if (left > 64) { int n = Math.Min(left, 16384); ops.Add((byte)(0x40 | ((n - 1) >> 8))); ops.Add((byte)((n - 1) & 0xff)); left -= n; }
                    else { ops.Add((byte)(left - 1)); left = 0; }
                }
            }
            else
            {
                int left = run;
                while (left > 0) { int n = Math.Min(left, 4); ops.Add((byte)(0x80 | ((v - 1) << 2) | (n - 1))); left -= n; }
            }
            i += run;
        }
        if (ops.Count > SparseMaxBytes) { value = []; return false; }
        value = new byte[HeaderSize + ops.Count];
        "HYLL"u8.CopyTo(value);
        value[4] = Sparse;
        InvalidateCache(value);
        ops.CopyTo(value, HeaderSize);
        return true;
    }

    public static void InvalidateCache(Span<byte> v) => v[15] |= 0x80;

    /// <summary>PFADD on a valid HLL value: the new value, or null when no register changed.</summary>
    public static byte[]? Add(ReadOnlySpan<byte> v, byte[][] elements)
    {
        var registers = new byte[Registers];
        if (!TryRegisters(v, registers)) throw new InvalidDataException(Corrupt);
        bool changed = false;
        foreach (var e in elements)
        {
            var (index, count) = PatLen(e);
            if (count > registers[index]) { registers[index] = (byte)count; changed = true; }
        }
        return changed ? Encode(registers, v[4] == Sparse) : null;
    }

    /// <summary>Redis's cardinality estimate from registers (hllCount).</summary>
    public static long Count(byte[] registers)
    {
        var histo = new int[64];
        foreach (byte r in registers) histo[r]++;
        double m = Registers;
        double z = m * Tau((m - histo[Q + 1]) / m);
        for (int j = Q; j >= 1; --j)
        {
            z += histo[j];
            z *= 0.5;
        }
        z += m * Sigma(histo[0] / m);
        return (long)Math.Round(0.721347520444481703680 * m * m / z, MidpointRounding.AwayFromZero);
    }

    private static double Sigma(double x)
    {
        if (x == 1.0) return double.PositiveInfinity;
        double zPrime, y = 1, z = x;
        do { x *= x; zPrime = z; z += x * y; y += y; } while (zPrime != z);
        return z;
    }

    private static double Tau(double x)
    {
        if (x == 0.0 || x == 1.0) return 0.0;
        double zPrime, y = 1.0, z = 1 - x;
        do { x = Math.Sqrt(x); zPrime = z; y *= 0.5; z -= Math.Pow(1 - x, 2) * y; } while (zPrime != z);
        return z / 3;
    }
}
