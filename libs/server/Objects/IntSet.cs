// IntSet: a set of integers as Redis's intset: sorted ascending, each in the smallest width that holds every member,
// here the element type of one array: short[] (2 bytes), int[] (4) or long[] (8). The array's type is the width, and
// its length the count, so a set in this form needs nothing besides the array.
// Invariants: members strictly ascending; the array is exactly as long as the count and never written once a set holds
// it (a change builds a new array, so a Clone shares it); the width only grows (as Redis's intsetUpgrade).
// Membership is a binary search.
namespace Garnet.server.Objects;

internal static class IntSet
{
    public static bool Is(object data) => data is short[] or int[] or long[];

    public static int Count(object set) => ((Array)set).Length;

    public static int Width(object set) => set switch { short[] => 2, int[] => 4, _ => 8 };

    public static int WidthOf(long v) => v >= short.MinValue && v <= short.MaxValue ? 2 : v >= int.MinValue && v <= int.MaxValue ? 4 : 8;

    public static long Get(object set, int i) => set switch
    {
        short[] s => s[i],
        int[] s => s[i],
        _ => ((long[])set)[i],
    };

    /// <summary>The index of v, or the bitwise complement of where it would go.</summary>
    public static int Search(object set, long v)
    {
        switch (set)
        {
            case short[] s:
                if (v < short.MinValue) return ~0;
                if (v > short.MaxValue) return ~s.Length;
                return Array.BinarySearch(s, (short)v);
            case int[] s:
                if (v < int.MinValue) return ~0;
                if (v > int.MaxValue) return ~s.Length;
                return Array.BinarySearch(s, (int)v);
            default:
                return Array.BinarySearch((long[])set, v);
        }
    }

    public static bool Contains(object set, long v) => Search(set, v) >= 0;

    /// <summary>A copy of set with v (not in it) inserted in order, in a wider array when v needs one.</summary>
    public static object Insert(object set, long v)
    {
        int index = ~Search(set, v);
        int count = Count(set);
        int width = Math.Max(Width(set), WidthOf(v));
        switch (width)
        {
            case 2:
            {
                var s = (short[])set;
                var r = new short[count + 1];
                Array.Copy(s, r, index);
                Array.Copy(s, index, r, index + 1, count - index);
                r[index] = (short)v;
                return r;
            }
            case 4:
            {
                var r = new int[count + 1];
                for (int i = 0; i < count; i++) r[i < index ? i : i + 1] = (int)Get(set, i);
                r[index] = (int)v;
                return r;
            }
            default:
            {
                var r = new long[count + 1];
                for (int i = 0; i < count; i++) r[i < index ? i : i + 1] = Get(set, i);
                r[index] = v;
                return r;
            }
        }
    }

    /// <summary>A copy of set without the member at index.</summary>
    public static object RemoveAt(object set, int index) => set switch
    {
        short[] s => Without(s, index),
        int[] s => Without(s, index),
        _ => Without((long[])set, index),
    };

    private static T[] Without<T>(T[] s, int index)
    {
        var r = new T[s.Length - 1];
        Array.Copy(s, r, index);
        Array.Copy(s, index + 1, r, index, s.Length - index - 1);
        return r;
    }

    /// <summary>A copy of set with fresh (ascending, distinct, none in set) merged in: one pass, O(count + fresh), where
    /// inserting them one at a time would copy the array once per member.</summary>
    public static object Merge(object set, ReadOnlySpan<long> fresh)
    {
        int count = Count(set);
        var merged = new long[count + fresh.Length];
        int a = 0, b = 0, w = 0;
        while (a < count && b < fresh.Length)
        {
            long x = Get(set, a);
            if (x < fresh[b]) { merged[w++] = x; a++; }
            else merged[w++] = fresh[b++];
        }
        while (a < count) merged[w++] = Get(set, a++);
        while (b < fresh.Length) merged[w++] = fresh[b++];
        return Build(merged, Width(set));
    }

    /// <summary>An intset of the given ascending, distinct values, at least minWidth bytes wide (the width only grows).</summary>
    public static object Build(ReadOnlySpan<long> sorted, int minWidth = 2)
    {
        int width = minWidth;
        foreach (long v in sorted) width = Math.Max(width, WidthOf(v));
        switch (width)
        {
            case 2: { var r = new short[sorted.Length]; for (int i = 0; i < r.Length; i++) r[i] = (short)sorted[i]; return r; }
            case 4: { var r = new int[sorted.Length]; for (int i = 0; i < r.Length; i++) r[i] = (int)sorted[i]; return r; }
            default: return sorted.ToArray();
        }
    }

    /// <summary>Heap bytes of the array.</summary>
    public static long HeapBytes(object set) => CollectionObject.ElementBytes(Count(set) * Width(set));
}
