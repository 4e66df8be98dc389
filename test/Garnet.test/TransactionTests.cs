// MULTI/EXEC/DISCARD/WATCH/UNWATCH through raw RESP2/RESP3 and StackExchange.Redis: queueing, EXECABORT, runtime
// errors without rollback, WATCH broken by writes (any client, any type, FLUSHALL/SWAPDB, expiry) and not by reads,
// blocking commands inside EXEC, and concurrent transfers that never change the sum.
using Garnet.client;
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class TransactionTests : ServerFixture
{
    private RespClient C() => _server.Client();

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.IsError ? "ERR:" + e.Text : e.Type == RespType.Integer ? e.Integer.ToString() : e.Text ?? "(nil)").ToArray();

    [TestCase(2)]
    [TestCase(3)]
    public void QueuedCommandsRunInOrderAtExec(int protocol)
    {
        using var c = C();
        c.Execute("HELLO", protocol.ToString());
        c.Execute("DEL", "t1:a", "t1:l");
        Assert.That(c.Execute("MULTI").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("SET", "t1:a", "10").Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("INCRBY", "t1:a", "5").Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("RPUSH", "t1:l", "x", "y").Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("GET", "t1:a").Text, Is.EqualTo("QUEUED"));
        using (var other = C()) Assert.That(other.Execute("EXISTS", "t1:a").Integer, Is.EqualTo(0), "nothing runs before EXEC");
        var r = c.Execute("EXEC");
        Assert.That(Texts(r), Is.EqualTo(new[] { "OK", "15", "2", "15" }));
        Assert.That(c.Execute("MULTI").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("EXEC").Elements, Is.Empty, "an empty transaction answers an empty array");
    }

    [Test]
    public void ErrorsWhileQueueingAbortAndRuntimeErrorsDoNotRollBack()
    {
        using var c = C();
        c.Execute("SET", "t2:s", "abc");
        c.Execute("MULTI");
        Assert.That(c.Execute("SET", "t2:x", "1").Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("NOSUCHCOMMAND").Text, Does.StartWith("ERR unknown command"));
        Assert.That(c.Execute("GET").Text, Is.EqualTo("ERR wrong number of arguments for 'get' command"));
        Assert.That(c.Execute("EXEC").Text, Is.EqualTo("EXECABORT Transaction discarded because of previous errors."));
        Assert.That(c.Execute("EXISTS", "t2:x").Integer, Is.EqualTo(0), "an aborted transaction runs nothing");
        // A runtime error is one element of EXEC's reply; the other commands ran.
        c.Execute("MULTI");
        c.Execute("SET", "t2:y", "1");
        c.Execute("INCR", "t2:s");
        c.Execute("LPUSH", "t2:s", "x");
        c.Execute("INCR", "t2:y");
        Assert.That(Texts(c.Execute("EXEC")), Is.EqualTo(new[] { "OK", "ERR:ERR value is not an integer or out of range", "ERR:WRONGTYPE Operation against a key holding the wrong kind of value", "2" }));
        // Control errors.
        Assert.That(c.Execute("EXEC").Text, Is.EqualTo("ERR EXEC without MULTI"));
        Assert.That(c.Execute("DISCARD").Text, Is.EqualTo("ERR DISCARD without MULTI"));
        c.Execute("MULTI");
        Assert.That(c.Execute("MULTI").Text, Is.EqualTo("ERR MULTI calls can not be nested"));
        Assert.That(c.Execute("WATCH", "t2:y").Text, Is.EqualTo("ERR WATCH inside MULTI is not allowed"));
        Assert.That(c.Execute("SAVE").Text, Is.EqualTo("ERR Command not allowed inside a transaction"));
        Assert.That(c.Execute("EXEC").Text, Does.StartWith("EXECABORT"), "a command not allowed in MULTI fails the EXEC");
        c.Execute("MULTI");
        c.Execute("SET", "t2:z", "1");
        Assert.That(c.Execute("DISCARD").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("EXISTS", "t2:z").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("PING").Text, Is.EqualTo("PONG"), "out of MULTI after DISCARD");
        // RESET leaves MULTI.
        c.Execute("MULTI");
        c.Execute("SET", "t2:z", "1");
        Assert.That(c.Execute("RESET").Text, Is.EqualTo("RESET"));
        Assert.That(c.Execute("EXEC").Text, Is.EqualTo("ERR EXEC without MULTI"));
    }

    [Test]
    public void WatchFailsExecWhenAnotherClientWritesTheKey()
    {
        using var c = C();
        using var other = C();
        c.Execute("SET", "t3:k", "1");
        Assert.That(c.Execute("WATCH", "t3:k").Text, Is.EqualTo("OK"));
        other.Execute("GET", "t3:k");
        other.Execute("EXISTS", "t3:k");
        c.Execute("MULTI");
        c.Execute("SET", "t3:k", "2");
        Assert.That(Texts(c.Execute("EXEC")), Is.EqualTo(new[] { "OK" }), "reads by others do not break a watch");
        c.Execute("WATCH", "t3:k");
        other.Execute("SET", "t3:k", "3");
        c.Execute("MULTI");
        c.Execute("SET", "t3:k", "4");
        var r = c.Execute("EXEC");
        Assert.That(r.IsNull && r.IsNullArray, "a changed watched key fails EXEC with a null array");
        Assert.That(c.Execute("GET", "t3:k").Text, Is.EqualTo("3"));
        // Collections, deletes, and UNWATCH.
        c.Execute("WATCH", "t3:h");
        other.Execute("HSET", "t3:h", "f", "v");
        c.Execute("MULTI");
        c.Execute("PING");
        Assert.That(c.Execute("EXEC").IsNull, "HSET by another client breaks the watch");
        c.Execute("WATCH", "t3:h");
        other.Execute("DEL", "t3:h");
        c.Execute("MULTI");
        Assert.That(c.Execute("EXEC").IsNull, "DEL breaks the watch");
        c.Execute("WATCH", "t3:k");
        other.Execute("SET", "t3:k", "5");
        c.Execute("UNWATCH");
        c.Execute("MULTI");
        c.Execute("GET", "t3:k");
        Assert.That(Texts(c.Execute("EXEC")), Is.EqualTo(new[] { "5" }), "UNWATCH forgets the watch");
        // A watch lasts one EXEC only.
        c.Execute("WATCH", "t3:k");
        c.Execute("MULTI");
        c.Execute("EXEC");
        other.Execute("SET", "t3:k", "6");
        c.Execute("MULTI");
        c.Execute("GET", "t3:k");
        Assert.That(Texts(c.Execute("EXEC")), Is.EqualTo(new[] { "6" }));
    }

    [Test]
    public void WatchAndFlushSwapDbAndExpiry()
    {
        using var c = C();
        using var other = C();
        c.Execute("SELECT", "9");
        other.Execute("SELECT", "9");
        other.Execute("FLUSHDB");
        // FLUSHDB breaks the watch of a key that exists, not of one that does not.
        c.Execute("SET", "t4:e", "1");
        c.Execute("WATCH", "t4:missing");
        other.Execute("FLUSHDB");
        c.Execute("MULTI");
        c.Execute("PING");
        Assert.That(Texts(c.Execute("EXEC")), Is.EqualTo(new[] { "PONG" }), "a flush does not touch a key that did not exist");
        c.Execute("SET", "t4:e", "1");
        c.Execute("WATCH", "t4:e");
        other.Execute("FLUSHDB");
        c.Execute("MULTI");
        Assert.That(c.Execute("EXEC").IsNull, "a flush of an existing watched key breaks the watch");
        // SWAPDB: a key that exists on the other side.
        other.Execute("SELECT", "10");
        other.Execute("SET", "t4:s", "x");
        c.Execute("WATCH", "t4:s");
        other.Execute("SWAPDB", "9", "10");
        c.Execute("MULTI");
        Assert.That(c.Execute("EXEC").IsNull, "SWAPDB brings in a key: the watch breaks");
        other.Execute("FLUSHDB");
        c.Execute("FLUSHDB");
        other.Execute("SELECT", "9");
        // A watched key that expires between WATCH and EXEC fails the EXEC.
        // (A TTL of 500 ms: WATCH must see the key still there, even on a stalled machine, which 40 ms could not promise.)
        c.Execute("SET", "t4:ttl", "v", "PX", "500");
        c.Execute("WATCH", "t4:ttl");
        for (int i = 0; i < 2000 && other.Execute("EXISTS", "t4:ttl").Integer == 1; i++) Thread.Sleep(10);
        Assert.That(other.Execute("EXISTS", "t4:ttl").Integer, Is.EqualTo(0), "the watched key expired");
        c.Execute("MULTI");
        c.Execute("PING");
        Assert.That(c.Execute("EXEC").IsNull, "an expired watched key fails EXEC");
    }

    [Test]
    public void BlockingCommandsInsideExecDoNotBlock()
    {
        using var c = C();
        c.Execute("DEL", "t5:empty", "t5:z");
        c.Execute("MULTI");
        c.Execute("BLPOP", "t5:empty", "0");
        c.Execute("BZPOPMIN", "t5:z", "0");
        c.Execute("RPUSH", "t5:empty", "a");
        c.Execute("BLPOP", "t5:empty", "0");
        var r = c.Execute("EXEC");
        Assert.That(r.Elements![0].IsNull && r.Elements[1].IsNull, "empty: answered as a timeout");
        Assert.That(r.Elements[3].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "t5:empty", "a" }));
    }

    [Test]
    public void ConcurrentTransfersKeepTheSum()
    {
        const int Accounts = 8, Clients = 6, Rounds = 300;
        using (var setup = C())
            for (int i = 0; i < Accounts; i++) setup.Execute("SET", "t6:acct" + i, "1000");
        var failures = new System.Collections.Concurrent.ConcurrentBag<string>();
        using var stop = new CancellationTokenSource();
        var reader = Task.Run(() =>
        {
            using var c = C();
            while (!stop.IsCancellationRequested)
            {
                c.Execute("MULTI");
                for (int i = 0; i < Accounts; i++) c.Execute("GET", "t6:acct" + i);
                long sum = c.Execute("EXEC").Elements!.Sum(e => long.Parse(e.Text!));
                if (sum != Accounts * 1000) failures.Add("MULTI read a sum of " + sum);
                var values = c.Execute(new[] { "MGET" }.Concat(Enumerable.Range(0, Accounts).Select(i => "t6:acct" + i)).ToArray());
                if (values.Elements is null || values.Elements.Any(e => e.Text is null || e.IsError)) { failures.Add("MGET answered " + values); continue; }
                long mget = values.Elements.Sum(e => long.Parse(e.Text!));
                if (mget != Accounts * 1000) failures.Add("MGET read a sum of " + mget);
            }
        });
        var writers = Enumerable.Range(0, Clients).Select(w => Task.Run(() =>
        {
            var rnd = new Random(w);
            using var c = C();
            for (int r = 0; r < Rounds; r++)
            {
                int from = rnd.Next(Accounts), to = rnd.Next(Accounts);
                int amount = rnd.Next(1, 50);
                c.Execute("MULTI");
                c.Execute("DECRBY", "t6:acct" + from, amount.ToString());
                c.Execute("INCRBY", "t6:acct" + to, amount.ToString());
                var reply = c.Execute("EXEC");
                if (reply.Elements is not { Length: 2 }) failures.Add("EXEC answered " + reply);
            }
        })).ToArray();
        Assert.That(Task.WaitAll(writers, TimeSpan.FromSeconds(60)), "writers finished");
        stop.Cancel();
        Assert.That(reader.Wait(TimeSpan.FromSeconds(30)));
        Assert.That(failures, Is.Empty);
        using var check = C();
        long total = Enumerable.Range(0, Accounts).Sum(i => long.Parse(check.Execute("GET", "t6:acct" + i).Text!));
        Assert.That(total, Is.EqualTo(Accounts * 1000));
    }

    [TestCase(RedisProtocol.Resp2)]
    [TestCase(RedisProtocol.Resp3)]
    public async Task StackExchangeRedisTransactionsWithConditions(RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        string key = "t7:" + protocol;
        await db.KeyDeleteAsync([key, key + ":h"]);
        var tx = db.CreateTransaction();
        tx.AddCondition(Condition.KeyNotExists(key));
        _ = tx.StringSetAsync(key, "first");
        _ = tx.HashSetAsync(key + ":h", "f", "1");
        Assert.That(await tx.ExecuteAsync(), Is.True);
        Assert.That((string?)await db.StringGetAsync(key), Is.EqualTo("first"));
        var again = db.CreateTransaction();
        again.AddCondition(Condition.KeyNotExists(key));
        var set = again.StringSetAsync(key, "second");
        Assert.That(await again.ExecuteAsync(), Is.False, "the condition fails: nothing runs");
        Assert.That((string?)await db.StringGetAsync(key), Is.EqualTo("first"));
        var cas = db.CreateTransaction();
        cas.AddCondition(Condition.StringEqual(key, "first"));
        cas.AddCondition(Condition.HashEqual(key + ":h", "f", "1"));
        var incr = cas.HashIncrementAsync(key + ":h", "f", 10);
        _ = cas.StringSetAsync(key, "third");
        Assert.That(await cas.ExecuteAsync(), Is.True);
        Assert.That(await incr, Is.EqualTo(11));
        Assert.That((string?)await db.StringGetAsync(key), Is.EqualTo("third"));
    }
}
