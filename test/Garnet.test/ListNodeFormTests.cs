// The two forms of a list node (Objects/ListNode): uniform (equal-length items with no lengths) and general (a length
// before and after each item). Each test checks which form the nodes are in (ListObject.DescribeNodes) and every
// invariant (ListObject.Validate) around the conversions: an item of another length pushed, set, inserted; removals
// (LREM, LTRIM) across nodes; splits; empty items; a model-based random run against List<byte[]>; and through RESP a
// restart, AOF replay, the object log, and DUMP/RESTORE of both forms, here and in redis-server. The node limit is
// process-wide: NonParallelizable, and every test puts the default back.
using System.Buffers;
using System.Text;
using Garnet.client;
using Garnet.server.Objects;

namespace Garnet.test;

[TestFixture, NonParallelizable]
public class ListNodeFormTests
{
    [TearDown]
    public void Defaults() => EncodingLimits.ListMaxListpackSize = -2;

    private static byte[] B(string s) => Encoding.ASCII.GetBytes(s);
    private static string S(ReadOnlySpan<byte> b) => Encoding.ASCII.GetString(b);
    private static string Item16(int i) => $"item:{i:D11}";

    private static List<string> All(ListObject l)
    {
        var all = new List<string>();
        for (var c = l.GetCursor(0, reverse: false); c.MoveNext();) all.Add(S(c.Current));
        return all;
    }

    private static ListObject Of(IEnumerable<string> items)
    {
        var l = new ListObject();
        foreach (var s in items) l.PushTail(B(s));
        l.Validate();
        return l;
    }

    [Test]
    public void EqualLengthItemsTakeNoLengthBytes()
    {
        var l = Of(Enumerable.Range(0, 100_000).Select(Item16));
        Assert.That(l.DescribeNodes().Split(' ').All(n => n.StartsWith('u')), Is.True, "every node uniform");
        Assert.That((double)l.HeapBytes / l.Count, Is.InRange(16.0, 16.5));
        Assert.That(S(l[77_777]), Is.EqualTo(Item16(77_777)));
        Assert.That(l.IndexOf(B(Item16(99_999))), Is.EqualTo(99_999));
        // The same items with one of another length: one node turns general, 2 bytes an item more there only.
        var mixed = Of(Enumerable.Range(0, 100_000).Select(i => i == 50_000 ? "odd" : Item16(i)));
        Assert.That(mixed.DescribeNodes().Split(' ').Count(n => n.StartsWith('g')), Is.EqualTo(1));
        Assert.That(mixed.HeapBytes - l.HeapBytes, Is.InRange(0, 8192), "one general node (and perhaps a tail buffer of another size)");
        Assert.That((double)mixed.HeapBytes / mixed.Count, Is.LessThan(16.5));
    }

    [Test]
    public void PushOfAnotherLengthTurnsTheEndNodeGeneral()
    {
        var l = Of(Enumerable.Range(0, 10).Select(i => "abcd" + i));
        Assert.That(l.DescribeNodes(), Is.EqualTo("u10"));
        l.PushTail(B("longer item"));
        l.PushHead(B("x"));
        l.Validate();
        Assert.That(l.DescribeNodes(), Is.EqualTo("g12"));
        Assert.That(All(l), Is.EqualTo(new[] { "x" }.Concat(Enumerable.Range(0, 10).Select(i => "abcd" + i)).Append("longer item")));
        // Popping the odd ones leaves a general node of equal items: it reads the same, and turns uniform when sealed.
        Assert.That(S(l.PopHead()), Is.EqualTo("x"));
        Assert.That(S(l.PopTail()), Is.EqualTo("longer item"));
        EncodingLimits.ListMaxListpackSize = 10;
        l.PushTail(B("abcdZ")); // the node is full: a new node; the old one is sealed
        l.Validate();
        Assert.That(l.DescribeNodes(), Is.EqualTo("u10 u1"));
        Assert.That(S(l[9]), Is.EqualTo("abcd9"));
    }

    [Test]
    public void SetInsertAndRemoveInsideUniformNodes()
    {
        EncodingLimits.ListMaxListpackSize = -1; // 4 KB nodes: 227 items of 16 bytes
        var model = Enumerable.Range(0, 2000).Select(Item16).ToList();
        var l = Of(model);
        int nodes = l.DescribeNodes().Split(' ').Length;
        Assert.That(nodes, Is.GreaterThan(5));
        // LSET of the same length keeps the node uniform; of another length turns it general.
        l.Set(10, B(Item16(-1)[..16])); model[10] = Item16(-1)[..16];
        Assert.That(l.DescribeNodes().Split(' ')[0], Does.StartWith("u"));
        l.Set(1000, B("short")); model[1000] = "short";
        l.Set(1001, B(new string('L', 300))); model[1001] = new string('L', 300);
        l.Validate();
        Assert.That(l.DescribeNodes().Split(' ').Count(n => n.StartsWith('g')), Is.InRange(1, 2), "only the node(s) holding the odd items");
        // LINSERT in the middle of a uniform node, same length and another; enough to split the node.
        l.Insert(1500, B(Item16(123))); model.Insert(1500, Item16(123));
        l.Insert(1600, B("")); model.Insert(1600, "");
        for (int i = 0; i < 300; i++) { l.Insert(1700, B(Item16(i))); model.Insert(1700, Item16(i)); }
        l.Validate();
        Assert.That(All(l), Is.EqualTo(model));
        // LREM of the odd items, from either end; RemoveAt across forms.
        Assert.That(l.RemoveAll(B("short"), 0), Is.EqualTo(1)); model.Remove("short");
        Assert.That(l.RemoveAll(B(Item16(5)), -1), Is.EqualTo(1)); model.RemoveAt(model.LastIndexOf(Item16(5)));
        Assert.That(l.RemoveAll(B(""), 1), Is.EqualTo(1)); model.Remove("");
        l.RemoveAt(1700); model.RemoveAt(1700);
        l.RemoveAt(3); model.RemoveAt(3);
        l.Validate();
        Assert.That(All(l), Is.EqualTo(model));
        // LTRIM across nodes, cutting into the first and last kept nodes.
        l.Trim(300, 1900); model = model.GetRange(300, 1601);
        l.Validate();
        Assert.That(All(l), Is.EqualTo(model));
        var back = new List<string>();
        for (var c = l.GetCursor(l.Count - 1, reverse: true); c.MoveNext();) back.Add(S(c.Current));
        back.Reverse();
        Assert.That(back, Is.EqualTo(model));
        for (int i = 0; i < model.Count; i += 37) Assert.That(S(l[i]), Is.EqualTo(model[i]));
    }

    [Test]
    public void EmptyItemsFormZeroWidthNodes()
    {
        var l = Of(Enumerable.Repeat("", 10_000));
        Assert.That(l.DescribeNodes().Split(' ').All(n => n.StartsWith('u')), Is.True);
        Assert.That(l.DescribeNodes().Split(' ').Length, Is.GreaterThan(1), "the node limit counts items as the general form does");
        Assert.That(S(l[5000]), Is.EqualTo(""));
        var c = l.GetCursor(9_998, reverse: false);
        Assert.That(c.MoveNext() && c.MoveNext() && !c.MoveNext(), Is.True, "a cursor counts items, not bytes");
        l.Insert(5000, B("x"));
        Assert.That(l.IndexOf(B("x")), Is.EqualTo(5000));
        Assert.That(l.RemoveAll(B(""), -3), Is.EqualTo(3));
        Assert.That(l.RemoveAll(B(""), 0), Is.EqualTo(9997));
        l.Validate();
        Assert.That(All(l), Is.EqualTo(new[] { "x" }));
    }

    [Test]
    public void RandomOperationsMatchAModel()
    {
        foreach (int fill in new[] { -2, -1, 1, 4, 32 })
        {
            EncodingLimits.ListMaxListpackSize = fill;
            var rng = new Random(fill + 1000);
            var l = new ListObject();
            var model = new List<byte[]>();
            bool sawUniform = false, sawGeneral = false;
            // Mostly one length (uniform nodes), sometimes another, empty, or long (two-byte lengths, a node of its own).
            byte[] Item()
            {
                int len = rng.Next(30) switch { 0 => 0, 1 => 3, 2 => 17, 3 => 200, 4 => 9000, _ => 8 };
                var b = new byte[len];
                for (int i = 0; i < len; i++) b[i] = (byte)('a' + rng.Next(3));
                return b;
            }
            byte[] Existing() => model.Count > 0 && rng.Next(2) == 0 ? model[rng.Next(model.Count)] : Item();
            for (int step = 0; step < 6000; step++)
            {
                int op = rng.Next(13);
                switch (op)
                {
                    case 0: case 1: { var v = Item(); l.PushHead(v); model.Insert(0, v); break; }
                    case 2: case 3: { var v = Item(); l.PushTail(v); model.Add(v); break; }
                    case 4 when model.Count > 0: Assert.That(l.PopHead(), Is.EqualTo(model[0])); model.RemoveAt(0); break;
                    case 5 when model.Count > 0: Assert.That(l.PopTail(), Is.EqualTo(model[^1])); model.RemoveAt(model.Count - 1); break;
                    case 6: { int at = rng.Next(model.Count + 1); var v = Item(); l.Insert(at, v); model.Insert(at, v); break; }
                    case 7 when model.Count > 0: { int at = rng.Next(model.Count); l.RemoveAt(at); model.RemoveAt(at); break; }
                    case 8 when model.Count > 0: { int at = rng.Next(model.Count); var v = Item(); l.Set(at, v); model[at] = v; break; }
                    case 9 when model.Count > 0: { int at = rng.Next(model.Count); Assert.That(l[at], Is.EqualTo(model[at])); break; }
                    case 10 when model.Count > 4 && rng.Next(6) == 0:
                    {
                        int a = rng.Next(model.Count / 4), b = model.Count - 1 - rng.Next(model.Count / 4);
                        l.Trim(a, b);
                        model = model.GetRange(a, b - a + 1);
                        break;
                    }
                    case 11:
                    {
                        var v = Existing();
                        long count = rng.Next(5) - 2, expect = 0;
                        long removed = l.RemoveAll(v, count);
                        if (count >= 0) { for (int i = 0; i < model.Count && (count == 0 || expect < count);) if (model[i].AsSpan().SequenceEqual(v)) { model.RemoveAt(i); expect++; } else i++; }
                        else { for (int i = model.Count - 1; i >= 0 && expect < -count; i--) if (model[i].AsSpan().SequenceEqual(v)) { model.RemoveAt(i); expect++; } }
                        Assert.That(removed, Is.EqualTo(expect));
                        break;
                    }
                    case 12:
                    {
                        var v = Existing();
                        Assert.That(l.IndexOf(v), Is.EqualTo(model.FindIndex(m => m.AsSpan().SequenceEqual(v))));
                        break;
                    }
                }
                Assert.That(l.Count, Is.EqualTo(model.Count), $"fill {fill} step {step} op {op}");
                if (step % 50 != 0) continue;
                l.Validate();
                var forms = l.DescribeNodes();
                sawUniform |= forms.Contains('u');
                sawGeneral |= forms.Contains('g');
                var all = new List<byte[]>();
                for (var c = l.GetCursor(0, reverse: false); c.MoveNext();) all.Add(c.Current.ToArray());
                Assert.That(all, Is.EqualTo(model), $"fill {fill} step {step}");
                var rev = new List<byte[]>();
                for (var c = l.GetCursor(model.Count - 1, reverse: true); c.MoveNext();) rev.Add(c.Current.ToArray());
                rev.Reverse();
                Assert.That(rev, Is.EqualTo(model));
                if (step % 500 != 0) continue;
                var clone = (ListObject)l.Clone();
                clone.Validate();
                clone.PushTail(B("clone-only"));
                if (clone.Count > 2) clone.Set(1, B("changed in the clone"));
                var w = new ArrayBufferWriter<byte>();
                l.WritePayload(w);
                var back = (ListObject)CollectionObject.Read(ObjectKind.List, w.WrittenSpan);
                back.Validate();
                all.Clear();
                for (var c = back.GetCursor(0, reverse: false); c.MoveNext();) all.Add(c.Current.ToArray());
                Assert.That(all, Is.EqualTo(model), "payload round trip; the clone is independent");
            }
            Assert.That(sawUniform && (sawGeneral || fill == 1), Is.True, $"fill {fill}: both forms were exercised (one-item nodes are always uniform)");
        }
    }

    // ---- through RESP --------------------------------------------------------------------------------------

    /// <summary>Key "u" (1000 16-byte items: uniform nodes) and "g" (the same with items of other lengths here and
    /// there: general nodes among uniform ones).</summary>
    private static void Fill(RespClient c)
    {
        for (int i = 0; i < 1000; i += 100)
        {
            c.Execute(new[] { "RPUSH", "u" }.Concat(Enumerable.Range(i, 100).Select(Item16)).ToArray());
            c.Execute(new[] { "RPUSH", "g" }.Concat(Enumerable.Range(i, 100).Select(Item16)).ToArray());
        }
        Assert.That(c.Execute("LSET", "g", "10", "short").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("LINSERT", "g", "BEFORE", Item16(600), new string('L', 200)).Integer, Is.EqualTo(1001));
        Assert.That(c.Execute("LPUSH", "g", "").Integer, Is.EqualTo(1002));
        Assert.That(c.Execute("LREM", "g", "0", Item16(900)).Integer, Is.EqualTo(1));
    }

    private static string[] Expected(string key)
    {
        var u = Enumerable.Range(0, 1000).Select(Item16).ToList();
        if (key == "u") return u.ToArray();
        u[10] = "short";
        u.Insert(600, new string('L', 200));
        u.Insert(0, "");
        u.Remove(Item16(900));
        return u.ToArray();
    }

    private static void Check(RespClient c, string prefix = "")
    {
        foreach (var key in new[] { "u", "g" })
        {
            var want = Expected(key);
            Assert.That(c.Execute("LRANGE", prefix + key, "0", "-1").Elements!.Select(e => e.Text ?? ""), Is.EqualTo(want), key);
            Assert.That(c.Execute("LINDEX", prefix + key, "601").Text, Is.EqualTo(want[601]));
            Assert.That(c.Execute("OBJECT", "ENCODING", prefix + key).Text, Is.EqualTo("quicklist"));
        }
    }

    [Test]
    public void BothFormsSurviveRestartAofAndObjectLog()
    {
        string dir = Path.Combine(Path.GetTempPath(), "garnet-listforms-" + Guid.NewGuid().ToString("N"));
        try
        {
            using (var server = new TestServer(null, dir))
            using (var c = server.Client())
            {
                Fill(c);
                Check(c);
                Assert.That(c.Execute("SAVE").Text, Is.EqualTo("OK"));
            }
            using (var server = new TestServer(null, dir))
            using (var c = server.Client())
            {
                Check(c);
                Assert.That(c.Execute("LSET", "u", "5", "now general").Text, Is.EqualTo("OK"));
                Assert.That(c.Execute("LINDEX", "u", "5").Text, Is.EqualTo("now general"));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }

        dir = Path.Combine(Path.GetTempPath(), "garnet-listforms-" + Guid.NewGuid().ToString("N"));
        try
        {
            Action<Garnet.Options.GarnetServerOptions> aof = o => { o.Aof = true; o.AofFsync = "always"; };
            using (var server = new TestServer(aof, dir))
            using (var c = server.Client())
            {
                Fill(c);
                server.Server.Server.SaveOnStop = false;
            }
            using (var server = new TestServer(aof, dir))
            using (var c = server.Client()) Check(c);
        }
        finally { try { Directory.Delete(dir, true); } catch { } }

        dir = Path.Combine(Path.GetTempPath(), "garnet-listforms-" + Guid.NewGuid().ToString("N"));
        try
        {
            // A small memory budget: the lists go to the object log and are read back from it.
            using var server = new TestServer(o => o.Memory = "8mb", dir);
            using var c = server.Client();
            Fill(c);
            string pad = new('p', 200);
            for (int start = 0; start < 20_000; start += 500)
            {
                for (int i = start; i < start + 500; i++) c.Send("RPUSH", "pad:" + i, pad, pad);
                for (int i = start; i < start + 500; i++) c.Read();
            }
            Assert.That(Directory.GetFiles(dir, "obj.*").Sum(f => new FileInfo(f).Length), Is.GreaterThan(4L << 20));
            Check(c);
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public void BothFormsDumpAndRestoreHereAndInRedis()
    {
        using var server = new TestServer();
        using var c = server.Client();
        Fill(c);
        var dumps = new[] { "u", "g" }.ToDictionary(k => k, k => c.Execute("DUMP", k).Bytes!);
        foreach (var (key, dump) in dumps) Assert.That(c.Execute("RESTORE", "r:" + key, "0", dump).Text, Is.EqualTo("OK"));
        Check(c, "r:");
        using var redis = new RedisProcess();
        using var r = new RespClient("127.0.0.1", redis.Port, 10000);
        foreach (var (key, dump) in dumps) Assert.That(r.Execute("RESTORE", key, "0", dump).Text, Is.EqualTo("OK"), key);
        Check(r);
        // And back: Redis's DUMP (quicklist of listpacks) restores here into the same items.
        foreach (var key in new[] { "u", "g" }) Assert.That(c.Execute("RESTORE", "back:" + key, "0", r.Execute("DUMP", key).Bytes!).Text, Is.EqualTo("OK"));
        Check(c, "back:");
    }
}
