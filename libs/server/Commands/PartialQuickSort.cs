// PartialQuickSort: Redis's pqsort (Bentley and McIlroy's "Engineering a Sort Function" quicksort, three-way
// partitioning around a median of three or of nine, insertion sort below 7 elements) that only recurses into the parts
// overlapping the wanted positions. GEOSEARCH and GEORADIUS use it when COUNT is below the number of members found.
// Invariants:
//  - Afterwards positions left..right hold what a full sort would put there; the rest is some permutation.
//  - Not stable: which of several equal elements land in the wanted positions, and in which order, follows this exact
//    sequence of comparisons and swaps, the same as Redis's, so that ties come out as Redis returns them.
//  - cmp must return -1, 0 or 1 consistently (a total preorder).
namespace Garnet.server.Commands;

public static class PartialQuickSort
{
    /// <summary>Orders a so that a[0..count) are its count smallest elements in order (count &gt;= 1).</summary>
    public static void Sort<T>(T[] a, Comparison<T> cmp, int count) => Sort(a, 0, a.Length, cmp, 0, count - 1);

    /// <summary>Sorts the run a[lo..lo+n) as far as positions left..right need.</summary>
    private static void Sort<T>(T[] a, int lo, int n, Comparison<T> cmp, int left, int right)
    {
        while (true)
        {
            if (n < 7)
            {
                for (int m = lo + 1; m < lo + n; m++)
                    for (int l = m; l > lo && cmp(a[l - 1], a[l]) > 0; l--) (a[l], a[l - 1]) = (a[l - 1], a[l]);
                return;
            }
            int pm = lo + n / 2;
            if (n > 7)
            {
                int pl = lo, pn = lo + n - 1;
                if (n > 40)
                {
                    int d = n / 8;
                    pl = Median3(a, pl, pl + d, pl + 2 * d, cmp);
                    pm = Median3(a, pm - d, pm, pm + d, cmp);
                    pn = Median3(a, pn - 2 * d, pn - d, pn, cmp);
                }
                pm = Median3(a, pl, pm, pn, cmp);
            }
            (a[lo], a[pm]) = (a[pm], a[lo]);
            int pa = lo + 1, pb = lo + 1, pc = lo + n - 1, pd = lo + n - 1;
            while (true)
            {
                int c;
                while (pb <= pc && (c = cmp(a[pb], a[lo])) <= 0)
                {
                    if (c == 0) { (a[pa], a[pb]) = (a[pb], a[pa]); pa++; }
                    pb++;
                }
                while (pb <= pc && (c = cmp(a[pc], a[lo])) >= 0)
                {
                    if (c == 0) { (a[pc], a[pd]) = (a[pd], a[pc]); pd--; }
                    pc--;
                }
                if (pb > pc) break;
                (a[pb], a[pc]) = (a[pc], a[pb]);
                pb++;
                pc--;
            }
            int end = lo + n;
            int r = Math.Min(pa - lo, pb - pa);
            SwapRuns(a, lo, pb - r, r);
            r = Math.Min(pd - pc, end - pd - 1);
            SwapRuns(a, pb, end - r, r);
            if ((r = pb - pa) > 1 && Overlaps(lo, r, left, right)) Sort(a, lo, r, cmp, left, right);
            if ((r = pd - pc) > 1)
            {
                lo = end - r;
                n = r;
                if (Overlaps(lo, n, left, right)) continue;
            }
            return;
        }
    }

    /// <summary>False only when [left, right] lies wholly before or wholly after the run [start, start + length).</summary>
    private static bool Overlaps(int start, int length, int left, int right) =>
        !((left < start && right < start) || (left >= start + length && right >= start + length));

    private static void SwapRuns<T>(T[] a, int i, int j, int count)
    {
        for (int k = 0; k < count; k++) (a[i + k], a[j + k]) = (a[j + k], a[i + k]);
    }

    private static int Median3<T>(T[] a, int i, int j, int k, Comparison<T> cmp) =>
        cmp(a[i], a[j]) < 0
            ? (cmp(a[j], a[k]) < 0 ? j : (cmp(a[i], a[k]) < 0 ? k : i))
            : (cmp(a[j], a[k]) > 0 ? j : (cmp(a[i], a[k]) < 0 ? i : k));
}
