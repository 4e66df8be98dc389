// Streams through a real client library: StackExchange.Redis 2.x over RESP2 and RESP3 (every test once per protocol):
// adding, ranges, reads, trimming, consumer groups, pending entries, claims and the XINFO replies it parses.
using StackExchange.Redis;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamClientTests : ServerFixture
{
    private static IDatabase Db(ConnectionMultiplexer mux) => mux.GetDatabase();

    [Test]
    public void AddRangeReadTrim([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = Db(mux);
        string key = "se:s:" + protocol;
        db.KeyDelete(key);
        var first = db.StreamAdd(key, "f", "v0");
        Assert.That(first.ToString(), Does.Match(@"^\d+-\d+$"));
        for (int i = 1; i < 10; i++) db.StreamAdd(key, new NameValueEntry[] { new("f", "v" + i), new("n", i) }, messageId: $"99999999999999-{i}");
        Assert.That(db.StreamLength(key), Is.EqualTo(10));
        var all = db.StreamRange(key);
        Assert.That(all.Select(e => (string?)e["f"]), Is.EqualTo(Enumerable.Range(0, 10).Select(i => "v" + i)));
        Assert.That((int)all[3]["n"], Is.EqualTo(3));
        var rev = db.StreamRange(key, "-", "+", count: 2, messageOrder: Order.Descending);
        Assert.That(rev.Select(e => e.Id.ToString()), Is.EqualTo(new[] { "99999999999999-9", "99999999999999-8" }));
        var after = db.StreamRead(key, "99999999999999-7");
        Assert.That(after.Select(e => e.Id.ToString()), Is.EqualTo(new[] { "99999999999999-8", "99999999999999-9" }));
        var multi = db.StreamRead(new[] { new StreamPosition(key, "0-0"), new StreamPosition("se:missing", "0-0") }, countPerStream: 3);
        Assert.That(multi.Single().Entries, Has.Length.EqualTo(3));
        Assert.That(db.StreamDelete(key, new RedisValue[] { "99999999999999-1", "1-1" }), Is.EqualTo(1));
        Assert.That(db.StreamTrim(key, 5), Is.EqualTo(4));
        Assert.That(db.StreamRange(key).Select(e => e.Id.ToString()).First(), Is.EqualTo("99999999999999-5"));
        var info = db.StreamInfo(key);
        Assert.That(info.Length, Is.EqualTo(5));
        Assert.That(info.LastGeneratedId.ToString(), Is.EqualTo("99999999999999-9"));
        Assert.That(info.FirstEntry.Id.ToString(), Is.EqualTo("99999999999999-5"));
        Assert.That(info.LastEntry.Id.ToString(), Is.EqualTo("99999999999999-9"));
        var ex = Assert.Throws<RedisServerException>(() => db.StreamAdd(key, "f", "v", messageId: "1-1"));
        Assert.That(ex!.Message, Is.EqualTo("ERR The ID specified in XADD is equal or smaller than the target stream top item"));
        db.StringSet("se:str", "x");
        Assert.Throws<RedisServerException>(() => db.StreamAdd("se:str", "f", "v"));
    }

    [Test]
    public void ConsumerGroupLifecycle([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = Db(mux);
        string key = "se:g:" + protocol;
        db.KeyDelete(key);
        Assert.That(db.StreamCreateConsumerGroup(key, "workers", "$", createStream: true));
        for (int i = 1; i <= 6; i++) db.StreamAdd(key, "job", "j" + i, messageId: $"{i}-0");
        var a = db.StreamReadGroup(key, "workers", "alice", ">", count: 2);
        var b = db.StreamReadGroup(key, "workers", "bob", ">", count: 3);
        Assert.That(a.Select(e => (string?)e["job"]), Is.EqualTo(new[] { "j1", "j2" }));
        Assert.That(b.Select(e => (string?)e["job"]), Is.EqualTo(new[] { "j3", "j4", "j5" }));
        Assert.That(db.StreamAcknowledge(key, "workers", a[0].Id), Is.EqualTo(1));
        var pending = db.StreamPending(key, "workers");
        Assert.That(pending.PendingMessageCount, Is.EqualTo(4));
        Assert.That(pending.LowestPendingMessageId.ToString(), Is.EqualTo("2-0"));
        Assert.That(pending.HighestPendingMessageId.ToString(), Is.EqualTo("5-0"));
        Assert.That(pending.Consumers.Select(c => (c.Name, c.PendingMessageCount)), Is.EqualTo(new[] { ("alice", 1), ("bob", 3) }));
        var details = db.StreamPendingMessages(key, "workers", 10, "bob");
        Assert.That(details.Select(d => d.MessageId.ToString()), Is.EqualTo(new[] { "3-0", "4-0", "5-0" }));
        Assert.That(details.All(d => d.DeliveryCount == 1 && d.ConsumerName == "bob"));
        // History: bob's own pending entries, again (delivery count goes up).
        var history = db.StreamReadGroup(key, "workers", "bob", "0-0");
        Assert.That(history.Select(e => e.Id.ToString()), Is.EqualTo(new[] { "3-0", "4-0", "5-0" }));
        Assert.That(db.StreamPendingMessages(key, "workers", 1, "bob")[0].DeliveryCount, Is.EqualTo(2));
        // Claims move entries between consumers.
        var claimed = db.StreamClaim(key, "workers", "carol", 0, new RedisValue[] { "3-0", "4-0" });
        Assert.That(claimed.Select(e => (string?)e["job"]), Is.EqualTo(new[] { "j3", "j4" }));
        var ids = db.StreamClaimIdsOnly(key, "workers", "carol", 0, new RedisValue[] { "5-0" });
        Assert.That(ids.Select(i => i.ToString()), Is.EqualTo(new[] { "5-0" }));
        var auto = db.StreamAutoClaim(key, "workers", "dave", 0, "0-0", 2);
        Assert.That(auto.ClaimedEntries.Select(e => e.Id.ToString()), Is.EqualTo(new[] { "2-0", "3-0" }));
        Assert.That(auto.NextStartId.ToString(), Is.EqualTo("4-0"));
        Assert.That(auto.DeletedIds, Is.Empty);
        var groups = db.StreamGroupInfo(key);
        Assert.That(groups.Single().Name, Is.EqualTo("workers"));
        Assert.That(groups.Single().PendingMessageCount, Is.EqualTo(4));
        Assert.That(groups.Single().LastDeliveredId, Is.EqualTo("5-0"));
        Assert.That(groups.Single().EntriesRead, Is.EqualTo(5));
        Assert.That(groups.Single().Lag, Is.EqualTo(1));
        var consumers = db.StreamConsumerInfo(key, "workers");
        Assert.That(consumers.Select(c => (c.Name, c.PendingMessageCount)), Is.EqualTo(new[] { ("alice", 0), ("bob", 0), ("carol", 2), ("dave", 2) }));
        Assert.That(db.StreamDeleteConsumer(key, "workers", "dave"), Is.EqualTo(2));
        Assert.That(db.StreamConsumerGroupSetPosition(key, "workers", "0-0"));
        Assert.That(db.StreamReadGroup(key, "workers", "erin", ">").Length, Is.EqualTo(6));
        Assert.That(db.StreamDeleteConsumerGroup(key, "workers"));
        Assert.That(db.StreamGroupInfo(key), Is.Empty);
        var ex = Assert.Throws<RedisServerException>(() => db.StreamReadGroup(key, "workers", "x", ">"));
        Assert.That(ex!.Message, Does.StartWith("NOGROUP No such key"));
    }
}
