// The packed collection forms (Objects/Listpack, IntSet, the quicklist nodes of ListObject, the id-based ZSkipList)
// against simple models: conversion at the thresholds (default and changed limits), operations on both sides of a
// conversion, Clone independence, payload round trips, memory per element; and through RESP: OBJECT ENCODING after
// CONFIG SET as Redis 7.2 reports it, listpack order as Redis lists it. The limits are process-wide: NonParallelizable,
// and every test puts the defaults back.
using System.Buffers;
using System.Text;
using Garnet.client;
using Garnet.server.Objects;

namespace Garnet.test;

[TestFixture, NonParallelizable]
public class PackedEncodingTests
{
    [TearDown]
    public void Defaults()
    {
        EncodingLimits.HashMaxListpackEntries = 128;
        EncodingLimits.HashMaxListpackValue = 64;
        EncodingLimits.ListMaxListpackSize = -2;
        EncodingLimits.SetMaxIntsetEntries = 512;
        EncodingLimits.SetMaxListpackEntries = 128;
        EncodingLimits.SetMaxListpackValue = 64;
        EncodingLimits.ZSetMaxListpackEntries = 128;
        EncodingLimits.ZSetMaxListpackValue = 64;
    }

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);
    private static string S(byte[] b) => Encoding.ASCII.GetString(b);

    private static T RoundTrip<T>(T value) where T : CollectionObject
    {
        var w = new ArrayBufferWriter<byte>();
        value.WritePayload(w);
        return (T)CollectionObject.Read(value.Kind, w.WrittenSpan);
    }

    // ---- hashes --------------------------------------------------------------------------------------------

    private static Dictionary<string, string> Map(HashObject h) => h.Entries.ToDictionary(e => S(e.Key), e => S(e.Value));

    [Test]
    public void HashConvertsPastItsLimitsAndKeepsWorking()
    {
        var h = new HashObject();
        for (int i = 0; i < 128; i++) Assert.That(h.Set(B("f" + i), B("v" + i)), Is.True);
        Assert.That(h.Encoding, Is.EqualTo("listpack"));
        Assert.That(h.Count, Is.EqualTo(128), "a count of two varint bytes");
        long packed = h.HeapBytes;
        Assert.That(h.Set(B("f5"), B("changed")), Is.False);
        Assert.That(h.Encoding, Is.EqualTo("listpack"));
        Assert.That(h.Set(B("f128"), B("v128")), Is.True);
        Assert.That(h.Encoding, Is.EqualTo("hashtable"));
        Assert.That(h.HeapBytes, Is.GreaterThan(3 * packed), "the table costs more than the packed form");
        Assert.That(S(h.Get(B("f5"))!), Is.EqualTo("changed"));
        Assert.That(S(h.Get(B("f128"))!), Is.EqualTo("v128"));
        Assert.That(h.Remove(B("f0")), Is.True);
        Assert.That(h.Count, Is.EqualTo(128));
        for (int i = 1; i < 120; i++) h.Remove(B("f" + i));
        Assert.That(h.Encoding, Is.EqualTo("hashtable"), "never back");

        var v = new HashObject();
        v.Set(B("a"), B(new string('x', 64)));
        Assert.That(v.Encoding, Is.EqualTo("listpack"));
        v.Set(B("a"), B(new string('x', 65)));
        Assert.That(v.Encoding, Is.EqualTo("hashtable"), "a value past hash-max-listpack-value, also on update");
        Assert.That(v.Get(B("a"))!.Length, Is.EqualTo(65));
        var f = new HashObject();
        f.Set(B(new string('k', 65)), B("1"));
        Assert.That(f.Encoding, Is.EqualTo("hashtable"));
    }

    [Test]
    public void HashPairHeadersOfEveryLength()
    {
        EncodingLimits.HashMaxListpackValue = 20000;
        var h = new HashObject();
        var model = new Dictionary<string, string>();
        int[] lengths = [3, 7, 8, 15, 16, 126, 127, 128, 300, 16383, 16384];
        int id = 0;
        foreach (int fl in lengths)
            foreach (int vl in new[] { 0, 1, 15, 16, 127, 128, 16384 })
            {
                string field = ((id++).ToString("D3") + new string('f', fl))[..fl];
                string value = new('v', vl);
                model[field] = value;
                Assert.That(h.Set(B(field), B(value)), Is.True, field);
            }
        Assert.That(h.Encoding, Is.EqualTo("listpack"));
        Assert.That(Map(h), Is.EqualTo(model));
        foreach (var (k, v) in model) Assert.That(S(h.Get(B(k))!), Is.EqualTo(v));
        Assert.That(Map(RoundTrip(h)), Is.EqualTo(model));
        foreach (var k in model.Keys.Where((_, i) => i % 3 == 0).ToList()) { Assert.That(h.Remove(B(k)), Is.True); model.Remove(k); }
        Assert.That(Map(h), Is.EqualTo(model));
        Assert.That(h.Count, Is.EqualTo(model.Count));
    }

    [Test]
    public void HashListpackKeepsInsertionOrderAsRedis()
    {
        var h = new HashObject();
        h.Set(B("a"), B("1"));
        h.Set(B("b"), B("2"));
        h.Set(B("c"), B("3"));
        h.Remove(B("b"));
        h.Set(B("d"), B("4"));
        h.Set(B("a"), B("one"));
        Assert.That(h.Entries.Select(e => S(e.Key) + "=" + S(e.Value)), Is.EqualTo(new[] { "a=one", "c=3", "d=4" }));
    }

    [Test]
    public void HashMatchesAModelAcrossTheConversion()
    {
        EncodingLimits.HashMaxListpackEntries = 16;
        var rng = new Random(7);
        var h = new HashObject();
        var model = new Dictionary<string, string>();
        for (int step = 0; step < 3000; step++)
        {
            string f = "f" + rng.Next(30);
            if (rng.Next(3) == 0) Assert.That(h.Remove(B(f)), Is.EqualTo(model.Remove(f)));
            else
            {
                string v = new('x', rng.Next(20));
                Assert.That(h.Set(B(f), B(v)), Is.EqualTo(!model.ContainsKey(f)));
                model[f] = v;
            }
            Assert.That(h.Count, Is.EqualTo(model.Count));
            Assert.That(h.Contains(B(f)), Is.EqualTo(model.ContainsKey(f)));
            if (step % 97 != 0) continue;
            Assert.That(Map(h), Is.EqualTo(model));
            var clone = (HashObject)h.Clone();
            Assert.That(clone.HeapBytes, Is.EqualTo(h.HeapBytes));
            Assert.That(clone.Encoding, Is.EqualTo(h.Encoding));
            clone.Set(B("only-in-clone"), B("1"));
            if (model.Count > 0) clone.Remove(B(model.Keys.First()));
            Assert.That(Map(h), Is.EqualTo(model), "a clone changes without the original changing");
            var back = RoundTrip(h);
            Assert.That(Map(back), Is.EqualTo(model));
            Assert.That(back.Encoding, Is.EqualTo(h.Encoding));
        }
        Assert.That(h.Encoding, Is.EqualTo("hashtable"));
    }

    // ---- sets ----------------------------------------------------------------------------------------------

    private static string[] Members(SetObject s) => s.Members.Select(S).ToArray();

    [Test]
    public void IntsetWidensKeepsOrderAndChecksCanonicalIntegers()
    {
        var s = new SetObject();
        s.Add(B("1"));
        s.Add(B("-2"));
        Assert.That(s.Encoding, Is.EqualTo("intset"));
        long two = s.HeapBytes;
        s.Add(B("70000"));
        s.Add(B("1099511627776"));
        s.Add(B("-9223372036854775808"));
        Assert.That(s.Encoding, Is.EqualTo("intset"));
        Assert.That(s.HeapBytes, Is.GreaterThan(two));
        Assert.That(Members(s), Is.EqualTo(new[] { "-9223372036854775808", "-2", "1", "70000", "1099511627776" }));
        Assert.That(s.Add(B("70000")), Is.False);
        Assert.That(s.Contains(B("1")), Is.True);
        foreach (var notCanonical in new[] { "+1", "01", " 1", "1 ", "-0", "9223372036854775808" }) Assert.That(s.Contains(B(notCanonical)), Is.False, notCanonical);
        Assert.That(s.Remove(B("70000")), Is.True);
        Assert.That(s.Remove(B("70000")), Is.False);
        Assert.That(s.Count, Is.EqualTo(4));
        Assert.That(S(s.RemoveAt(0)), Is.EqualTo("-9223372036854775808"), "slots of an intset are ascending");
        Assert.That(Members(RoundTrip(s)), Is.EqualTo(new[] { "-2", "1", "1099511627776" }));
        Assert.That(RoundTrip(s).Encoding, Is.EqualTo("intset"));
        // 10 integers below 32768 take 2 bytes each
        var small = new SetObject();
        for (int i = 0; i < 10; i++) small.Add(B(i.ToString()));
        Assert.That(small.HeapBytes, Is.EqualTo(64 + 24 + 24));
    }

    [Test]
    public void SetConversionsFollowRedis()
    {
        // intset -> listpack on a string while small
        var s = new SetObject();
        for (int i = 0; i < 5; i++) s.Add(B(i.ToString()));
        s.Add(B("abc"));
        Assert.That(s.Encoding, Is.EqualTo("listpack"));
        Assert.That(Members(s), Is.EqualTo(new[] { "0", "1", "2", "3", "4", "abc" }), "the integers in order, then the new member");
        for (int i = 0; i < 122; i++) s.Add(B("m" + i));
        Assert.That(s.Count, Is.EqualTo(128));
        Assert.That(s.Encoding, Is.EqualTo("listpack"));
        s.Add(B("one-more"));
        Assert.That(s.Encoding, Is.EqualTo("hashtable"));
        Assert.That(s.Contains(B("3")) && s.Contains(B("m100")) && s.Contains(B("one-more")), Is.True);
        // a long member makes a listpack a hashtable
        var l = new SetObject();
        l.Add(B("x"));
        l.Add(B(new string('y', 65)));
        Assert.That(l.Encoding, Is.EqualTo("hashtable"));
        // an intset of 128 integers meeting a string becomes a hashtable; past 512 integers too
        var big = new SetObject();
        for (int i = 0; i < 128; i++) big.Add(B(i.ToString()));
        big.Add(B("s"));
        Assert.That(big.Encoding, Is.EqualTo("hashtable"));
        var ints = new SetObject();
        for (int i = 0; i < 512; i++) ints.Add(B((i * 1000).ToString()));
        Assert.That(ints.Encoding, Is.EqualTo("intset"));
        ints.Add(B("-1"));
        Assert.That(ints.Encoding, Is.EqualTo("hashtable"));
        Assert.That(ints.Count, Is.EqualTo(513));
        // size hints
        var hinted = new SetObject();
        hinted.PrepareForAdd(600, B("1"));
        Assert.That(hinted.Encoding, Is.EqualTo("hashtable"));
        var hinted2 = new SetObject();
        hinted2.PrepareForAdd(3, B("a"));
        Assert.That(hinted2.Encoding, Is.EqualTo("listpack"));
        hinted2.Add(B("a"));
        hinted2.PrepareForAdd(200, B("b"));
        Assert.That(hinted2.Encoding, Is.EqualTo("hashtable"));
    }

    [Test]
    public void SetMatchesAModelAcrossConversions()
    {
        foreach (var (intsets, listpacks) in new[] { (20, 10), (5, 50), (512, 128) })
        {
            EncodingLimits.SetMaxIntsetEntries = intsets;
            EncodingLimits.SetMaxListpackEntries = listpacks;
            var rng = new Random(intsets);
            var s = new SetObject();
            var model = new HashSet<string>();
            var seen = new HashSet<string>();
            for (int step = 0; step < 2000; step++)
            {
                string m = step > 300 && rng.Next(10) == 0 ? "s" + rng.Next(30) : (rng.Next(60) - 30).ToString();
                int op = rng.Next(4);
                if (op == 0) Assert.That(s.Remove(B(m)), Is.EqualTo(model.Remove(m)));
                else if (op == 1 && model.Count > 0)
                {
                    var slots = s.Slots.Select(S).ToList();
                    int slot = rng.Next(slots.Count);
                    Assert.That(S(s.RemoveAt(slot)), Is.EqualTo(slots[slot]));
                    model.Remove(slots[slot]);
                }
                else Assert.That(s.Add(B(m)), Is.EqualTo(model.Add(m)));
                seen.Add(s.Encoding);
                Assert.That(s.Count, Is.EqualTo(model.Count));
                Assert.That(s.Contains(B(m)), Is.EqualTo(model.Contains(m)));
                if (step % 101 != 0) continue;
                Assert.That(Members(s).OrderBy(x => x), Is.EqualTo(model.OrderBy(x => x)));
                var clone = (SetObject)s.Clone();
                clone.Add(B("clone-only"));
                if (clone.Count > 1) clone.RemoveAt(0);
                Assert.That(Members(s).OrderBy(x => x), Is.EqualTo(model.OrderBy(x => x)), "the clone is independent");
                var back = RoundTrip(s);
                Assert.That(back.Encoding, Is.EqualTo(s.Encoding));
                Assert.That(Members(back).OrderBy(x => x), Is.EqualTo(model.OrderBy(x => x)));
            }
            Assert.That(seen, Does.Contain("intset").And.Contain(intsets == 512 ? "listpack" : "hashtable"), $"limits {intsets}/{listpacks}");
            s.Clear();
            Assert.That(s.Count, Is.EqualTo(0));
        }
    }

    // ---- sorted sets ---------------------------------------------------------------------------------------

    [Test]
    public void SortedSetMatchesAModelInBothForms()
    {
        foreach (int limit in new[] { 1000, 24 })
        {
            EncodingLimits.ZSetMaxListpackEntries = limit;
            var rng = new Random(limit);
            var z = new SortedSetObject();
            var model = new Dictionary<string, double>();
            for (int step = 0; step < 4000; step++)
            {
                string m = "k" + rng.Next(200);
                int op = rng.Next(6);
                if (op == 0) Assert.That(z.Remove(B(m)), Is.EqualTo(model.Remove(m)));
                else if (op == 1 && model.Count > 0)
                {
                    bool max = rng.Next(2) == 0;
                    var expected = Ordered(model);
                    var (pm, ps) = z.Pop(max);
                    var want = max ? expected[^1] : expected[0];
                    Assert.That((S(pm), ps), Is.EqualTo(want));
                    model.Remove(want.Item1);
                }
                else
                {
                    double score = rng.Next(40) - 20;
                    Assert.That(z.Set(B(m), score), Is.EqualTo(!model.ContainsKey(m)));
                    model[m] = score;
                }
                Assert.That(z.Count, Is.EqualTo(model.Count));
                if (step % 53 != 0) continue;
                Check(z, model, rng);
            }
            Assert.That(z.Encoding, Is.EqualTo(limit == 1000 ? "listpack" : "skiplist"));
        }
    }

    private static List<(string, double)> Ordered(Dictionary<string, double> model) =>
        model.OrderBy(kv => kv.Value).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => (kv.Key, kv.Value)).ToList();

    private static void Check(SortedSetObject z, Dictionary<string, double> model, Random rng)
    {
        var expected = Ordered(model);
        Assert.That(z.Entries.Select(e => (S(e.Member), e.Score)), Is.EqualTo(expected));
        for (int i = 0; i < expected.Count; i += 7)
        {
            Assert.That(z.Rank(B(expected[i].Item1)), Is.EqualTo(i));
            Assert.That((S(z.ElementAt(i).Member), z.ElementAt(i).Score), Is.EqualTo(expected[i]));
            Assert.That(z.TryGetScore(B(expected[i].Item1), out double sc) && sc == expected[i].Item2, Is.True);
        }
        Assert.That(z.Rank(B("absent")), Is.EqualTo(-1));
        double lo = rng.Next(40) - 20, hi = lo + rng.Next(10);
        var (first, last) = z.ScoreRange(new ScoreBound(lo, true), new ScoreBound(hi, false));
        Assert.That(Math.Max(0, last - first + 1), Is.EqualTo(model.Values.Count(v => v > lo && v <= hi)));
        var (lf, ll) = z.LexRange(new LexBound(LexBoundKind.Inclusive, B("k1")), new LexBound(LexBoundKind.Exclusive, B("k5")));
        if (model.Count > 0) Assert.That(lf, Is.LessThanOrEqualTo(ll + 1));
        if (expected.Count > 0)
        {
            int at = rng.Next(expected.Count), n = rng.Next(1, 12);
            var fwd = new List<(byte[] Member, double Score)>();
            z.CopyRange(at, n, backward: false, fwd);
            Assert.That(fwd.Select(e => (S(e.Member), e.Score)), Is.EqualTo(expected.Skip(at).Take(n)));
            var back = new List<(byte[] Member, double Score)>();
            z.CopyRange(at, n, backward: true, back);
            Assert.That(back.Select(e => (S(e.Member), e.Score)), Is.EqualTo(expected.Take(at + 1).Reverse().Take(n)));
        }
        var clone = (SortedSetObject)z.Clone();
        Assert.That(clone.HeapBytes, Is.EqualTo(z.HeapBytes));
        clone.Set(B("clone-only"), 0);
        if (expected.Count > 0) clone.Remove(B(expected[0].Item1));
        Assert.That(z.Entries.Select(e => (S(e.Member), e.Score)), Is.EqualTo(expected), "the clone is independent");
        var roundTrip = RoundTrip(z);
        Assert.That(roundTrip.Encoding, Is.EqualTo(z.Encoding));
        Assert.That(roundTrip.Entries.Select(e => (S(e.Member), e.Score)), Is.EqualTo(expected));
    }

    [Test]
    public void SortedSetConvertsAtItsLimits()
    {
        var z = new SortedSetObject();
        for (int i = 0; i < 128; i++) z.Set(B("m" + i), i);
        Assert.That(z.Encoding, Is.EqualTo("listpack"));
        z.Set(B("m5"), 1000);
        Assert.That(z.Encoding, Is.EqualTo("listpack"));
        z.Set(B("m128"), -1);
        Assert.That(z.Encoding, Is.EqualTo("skiplist"));
        Assert.That(z.Rank(B("m128")), Is.EqualTo(0));
        Assert.That(z.Rank(B("m5")), Is.EqualTo(128));
        var longMember = new SortedSetObject();
        longMember.Set(B(new string('v', 65)), 1);
        Assert.That(longMember.Encoding, Is.EqualTo("skiplist"));
        var hinted = new SortedSetObject();
        hinted.HintSize(129, 1);
        Assert.That(hinted.Encoding, Is.EqualTo("skiplist"));
        var sorted = Enumerable.Range(0, 200).Select(i => (B("e" + i.ToString("D3")), (double)i)).ToList();
        Assert.That(SortedSetObject.FromSorted(sorted.Take(128).ToList()).Encoding, Is.EqualTo("listpack"));
        var built = SortedSetObject.FromSorted(sorted);
        Assert.That(built.Encoding, Is.EqualTo("skiplist"));
        Assert.That(built.Rank(B("e150")), Is.EqualTo(150));
    }

    [Test]
    public void BigSkipListStaysConsistentAndSmall()
    {
        var z = new SortedSetObject();
        const int n = 200_000;
        for (int i = 0; i < n; i++) z.Set(B("m:" + i), i * 1.5);
        Assert.That(z.Encoding, Is.EqualTo("skiplist"));
        Assert.That((double)z.HeapBytes / n, Is.LessThan(90), "bytes per member (arrays, links, buckets, member arrays)");
        for (int i = 0; i < n; i += 9973)
        {
            Assert.That(z.Rank(B("m:" + i)), Is.EqualTo(i));
            Assert.That(S(z.ElementAt(i).Member), Is.EqualTo("m:" + i));
        }
        for (int i = 0; i < n; i += 2) z.Remove(B("m:" + i));
        Assert.That(z.Count, Is.EqualTo(n / 2));
        for (int i = 1; i < n; i += 9972) Assert.That(z.Rank(B("m:" + i)), Is.EqualTo(i / 2));
        for (int i = 0; i < n; i += 2) z.Set(B("m:" + i), -i); // free nodes and link blocks are reused
        Assert.That(z.Count, Is.EqualTo(n));
        Assert.That(S(z.ElementAt(0).Member), Is.EqualTo("m:" + (n - 2)));
        var (first, last) = z.ScoreRange(new ScoreBound(0, false), new ScoreBound(double.PositiveInfinity, false));
        Assert.That(last - first + 1, Is.EqualTo(n / 2 + 1), "0 and the odd members");
        var back = RoundTrip(z);
        Assert.That(back.Entries.Select(e => S(e.Member)), Is.EqualTo(z.Entries.Select(e => S(e.Member))));
    }

    // ---- lists ---------------------------------------------------------------------------------------------

    [Test]
    public void ListMatchesAModelWithEveryNodeLimit()
    {
        foreach (int fill in new[] { -2, -1, 1, 3, 16 })
        {
            EncodingLimits.ListMaxListpackSize = fill;
            var rng = new Random(fill + 100);
            var l = new ListObject();
            var model = new List<string>();
            string Item() => rng.Next(20) switch
            {
                0 => new string('L', rng.Next(100, 300)),      // two-byte lengths
                1 => new string('H', 5000 + rng.Next(5000)),   // larger than a 4 KB node
                _ => "i" + rng.Next(12),
            };
            for (int step = 0; step < 3000; step++)
            {
                int op = rng.Next(14);
                switch (op)
                {
                    case 0: case 1: { var v = Item(); l.PushHead(B(v)); model.Insert(0, v); break; }
                    case 2: case 3: { var v = Item(); l.PushTail(B(v)); model.Add(v); break; }
                    case 4 when model.Count > 0: Assert.That(S(l.PopHead()), Is.EqualTo(model[0])); model.RemoveAt(0); break;
                    case 5 when model.Count > 0: Assert.That(S(l.PopTail()), Is.EqualTo(model[^1])); model.RemoveAt(model.Count - 1); break;
                    case 6: { int at = rng.Next(model.Count + 1); var v = Item(); l.Insert(at, B(v)); model.Insert(at, v); break; }
                    case 7 when model.Count > 0: { int at = rng.Next(model.Count); l.RemoveAt(at); model.RemoveAt(at); break; }
                    case 8 when model.Count > 0: { int at = rng.Next(model.Count); var v = Item(); l.Set(at, B(v)); model[at] = v; break; }
                    case 9 when model.Count > 0: { int at = rng.Next(model.Count); Assert.That(S(l[at]), Is.EqualTo(model[at])); break; }
                    case 10 when model.Count > 4 && rng.Next(8) == 0:
                    {
                        int a = rng.Next(model.Count / 3), b = model.Count - 1 - rng.Next(model.Count / 3);
                        l.Trim(a, b);
                        model = model.GetRange(a, b - a + 1);
                        break;
                    }
                    case 11:
                    {
                        var v = "i" + rng.Next(12);
                        long count = rng.Next(5) - 2;
                        long removed = l.RemoveAll(B(v), count);
                        long expect = 0;
                        if (count >= 0) { for (int i = 0; i < model.Count && (count == 0 || expect < count);) if (model[i] == v) { model.RemoveAt(i); expect++; } else i++; }
                        else { for (int i = model.Count - 1; i >= 0 && expect < -count; i--) if (model[i] == v) { model.RemoveAt(i); expect++; } }
                        Assert.That(removed, Is.EqualTo(expect));
                        break;
                    }
                    case 12: { var v = "i" + rng.Next(12); Assert.That(l.IndexOf(B(v)), Is.EqualTo(model.IndexOf(v))); break; }
                    default:
                        if (model.Count == 0) break;
                        int start = rng.Next(model.Count), stop = Math.Min(model.Count - 1, start + rng.Next(40));
                        var got = new List<byte[]>();
                        l.CopyRange(start, stop, got);
                        Assert.That(got.Select(S), Is.EqualTo(model.GetRange(start, stop - start + 1)));
                        var rev = new List<string>();
                        for (var c = l.GetCursor(stop, reverse: true); c.MoveNext() && c.Index >= start;) rev.Add(Encoding.ASCII.GetString(c.Current));
                        Assert.That(rev, Is.EqualTo(model.GetRange(start, stop - start + 1).AsEnumerable().Reverse()));
                        break;
                }
                Assert.That(l.Count, Is.EqualTo(model.Count), $"fill {fill} step {step} op {op}");
                if (step % 157 != 0) continue;
                var all = new List<byte[]>();
                if (model.Count > 0) l.CopyRange(0, model.Count - 1, all);
                Assert.That(all.Select(S), Is.EqualTo(model));
                var clone = (ListObject)l.Clone();
                clone.PushTail(B("clone-only"));
                if (clone.Count > 1) clone.PopHead();
                if (clone.Count > 2) clone.Set(1, B("changed"));
                all.Clear();
                if (model.Count > 0) l.CopyRange(0, model.Count - 1, all);
                Assert.That(all.Select(S), Is.EqualTo(model), "the clone is independent");
                var back = RoundTrip(l);
                all.Clear();
                if (model.Count > 0) back.CopyRange(0, model.Count - 1, all);
                Assert.That(all.Select(S), Is.EqualTo(model));
            }
        }
    }

    [Test]
    public void ListOfSixteenByteItemsCostsAboutSixteenBytesEach()
    {
        var l = new ListObject();
        const int n = 1_000_000;
        var item = new byte[16];
        for (int i = 0; i < n; i++) { BitConverter.TryWriteBytes(item, i); l.PushTail(item); }
        double perItem = (double)l.HeapBytes / n;
        Assert.That(perItem, Is.InRange(16.0, 16.6), "16 bytes (uniform nodes: no lengths) and the nodes' share");
        Assert.That(l.Encoding, Is.EqualTo("quicklist"));
        BitConverter.TryWriteBytes(item, 500_000);
        Assert.That(l[500_000], Is.EqualTo(item));
        Assert.That(l.IndexOf(item), Is.EqualTo(500_000));
        var lpush = new ListObject();
        for (int i = 0; i < n; i++) lpush.PushHead(item);
        Assert.That((double)lpush.HeapBytes / n, Is.InRange(16.0, 16.6), "pushing at the head packs as well");
        for (int i = 0; i < n - 3; i++) lpush.PopTail();
        Assert.That(lpush.Count, Is.EqualTo(3));
        Assert.That(lpush.Encoding, Is.EqualTo("listpack"), "back to one small node");
        Assert.That(lpush.HeapBytes, Is.LessThan(20_000));
    }

    // ---- through RESP --------------------------------------------------------------------------------------

    [Test]
    public void ObjectEncodingAfterConfigSetAsRedis()
    {
        using var server = new TestServer();
        using var c = server.Client();
        string Enc(string key) => c.Execute("OBJECT", "ENCODING", key).Text!;
        string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

        Assert.That(c.Execute("CONFIG", "SET", "hash-max-listpack-entries", "4").Text, Is.EqualTo("OK"));
        c.Execute("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4");
        Assert.That(Enc("h"), Is.EqualTo("listpack"));
        c.Execute("HDEL", "h", "b");
        c.Execute("HSET", "h", "e", "5");
        Assert.That(Texts(c.Execute("HGETALL", "h")), Is.EqualTo(new[] { "a", "1", "c", "3", "d", "4", "e", "5" }), "listpack order, as Redis");
        c.Execute("HSET", "h", "f", "6");
        Assert.That(Enc("h"), Is.EqualTo("hashtable"));
        Assert.That(c.Execute("HGET", "h", "c").Text, Is.EqualTo("3"));
        Assert.That(c.Execute("HLEN", "h").Integer, Is.EqualTo(5));

        Assert.That(c.Execute("CONFIG", "SET", "set-max-intset-entries", "3").Text, Is.EqualTo("OK"));
        c.Execute("SADD", "s", "3", "1", "2");
        Assert.That(Enc("s"), Is.EqualTo("intset"));
        Assert.That(Texts(c.Execute("SMEMBERS", "s")), Is.EqualTo(new[] { "1", "2", "3" }));
        c.Execute("SADD", "s", "4");
        Assert.That(Enc("s"), Is.EqualTo("hashtable"));
        Assert.That(c.Execute("CONFIG", "SET", "set-max-listpack-entries", "2").Text, Is.EqualTo("OK"));
        c.Execute("SADD", "t", "b", "a");
        Assert.That(Enc("t"), Is.EqualTo("listpack"));
        Assert.That(Texts(c.Execute("SMEMBERS", "t")), Is.EqualTo(new[] { "b", "a" }), "listpack order, as Redis");
        c.Execute("SADD", "t", "c");
        Assert.That(Enc("t"), Is.EqualTo("hashtable"));
        Assert.That(c.Execute("SCARD", "t").Integer, Is.EqualTo(3));

        Assert.That(c.Execute("CONFIG", "SET", "zset-max-listpack-entries", "2").Text, Is.EqualTo("OK"));
        c.Execute("ZADD", "z", "2", "b", "1", "a");
        Assert.That(Enc("z"), Is.EqualTo("listpack"));
        c.Execute("ZADD", "z", "0", "c");
        Assert.That(Enc("z"), Is.EqualTo("skiplist"));
        Assert.That(Texts(c.Execute("ZRANGE", "z", "0", "-1", "WITHSCORES")), Is.EqualTo(new[] { "c", "0", "a", "1", "b", "2" }));
        Assert.That(c.Execute("CONFIG", "SET", "zset-max-listpack-value", "3").Text, Is.EqualTo("OK"));
        c.Execute("ZADD", "z2", "1", "abcd");
        Assert.That(Enc("z2"), Is.EqualTo("skiplist"));

        Assert.That(c.Execute("CONFIG", "SET", "list-max-listpack-size", "2").Text, Is.EqualTo("OK"));
        c.Execute("RPUSH", "l", "a", "b");
        Assert.That(Enc("l"), Is.EqualTo("listpack"));
        c.Execute("RPUSH", "l", "c", "d", "e");
        Assert.That(Enc("l"), Is.EqualTo("quicklist"));
        Assert.That(Texts(c.Execute("LRANGE", "l", "0", "-1")), Is.EqualTo(new[] { "a", "b", "c", "d", "e" }));
        Assert.That(c.Execute("LINSERT", "l", "BEFORE", "c", "x").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("LREM", "l", "0", "b").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("LPOS", "l", "e").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("LTRIM", "l", "1", "-2").Text, Is.EqualTo("OK"));
        Assert.That(Texts(c.Execute("LRANGE", "l", "0", "-1")), Is.EqualTo(new[] { "x", "c", "d" }));

        // copies (COPY, DUMP/RESTORE) keep contents and encodings
        foreach (var key in new[] { "h", "s", "t", "z", "l" })
        {
            Assert.That(c.Execute("COPY", key, key + ":copy").Integer, Is.EqualTo(1));
            Assert.That(Enc(key + ":copy"), Is.EqualTo(Enc(key)), key);
            var dump = c.Execute("DUMP", key);
            Assert.That(c.Execute("RESTORE", key + ":restored", "0", dump.Bytes!).Text, Is.EqualTo("OK"));
        }
        Assert.That(c.Execute("SCARD", "s:restored").Integer, Is.EqualTo(4));
        Assert.That(Texts(c.Execute("LRANGE", "l:restored", "0", "-1")), Is.EqualTo(new[] { "x", "c", "d" }));
    }
}
