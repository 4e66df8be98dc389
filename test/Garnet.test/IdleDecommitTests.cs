using Garnet.common.Util;

namespace Garnet.test;

/// <summary>When the server gives the GC's unused committed memory back: only after a quiet spell, only for a large
/// surplus, once per quiet spell.</summary>
[TestFixture]
public class IdleDecommitTests
{
    private const long MB = 1L << 20;

    [Test]
    public void AsksOnceAfterAQuietSpellWithALargeSurplus()
    {
        var d = new IdleDecommit();
        Assert.That(d.Check(200 * MB, 10 * MB, 50_000, 0), Is.False, "busy");
        Assert.That(d.Check(200 * MB, 10 * MB, 10, 1_000), Is.False, "quiet only just now");
        Assert.That(d.Check(200 * MB, 10 * MB, 10, 1_000 + IdleDecommit.QuietMs - 1), Is.False, "not quiet long enough");
        Assert.That(d.Check(200 * MB, 10 * MB, 10, 1_000 + IdleDecommit.QuietMs), Is.True);
        Assert.That(d.Check(200 * MB, 10 * MB, 10, 10_000), Is.False, "once per quiet spell");
        Assert.That(d.Check(200 * MB, 10 * MB, 5_000, 11_000), Is.False, "traffic again");
        Assert.That(d.Check(200 * MB, 10 * MB, 0, 12_000), Is.False);
        Assert.That(d.Check(200 * MB, 10 * MB, 0, 12_000 + IdleDecommit.QuietMs), Is.True, "a new quiet spell asks again");
    }

    [Test]
    public void SmallSurplusIsLeftAlone()
    {
        var d = new IdleDecommit();
        Assert.That(d.Check(40 * MB, 10 * MB, 0, 0), Is.False);
        Assert.That(d.Check(40 * MB, 10 * MB, 0, 5_000), Is.False, "30 MB beyond the heap is below the floor");
        Assert.That(d.Check(150 * MB, 80 * MB, 0, 6_000), Is.False, "70 MB beyond an 80 MB heap is less than the heap");
        Assert.That(d.Check(250 * MB, 80 * MB, 0, 7_000), Is.True);
    }

    [Test]
    public void AsksAgainWhenMemoryGrowsWhileQuiet()
    {
        // MSET of 3M pairs, then (still quiet) FLUSHALL, whose purge takes 250 MB that must not stay until MEMORY PURGE.
        var d = new IdleDecommit();
        Assert.That(d.Check(300 * MB, 10 * MB, 0, 0), Is.False);
        Assert.That(d.Check(300 * MB, 10 * MB, 0, IdleDecommit.QuietMs), Is.True, "after the large request");
        Assert.That(d.Check(20 * MB, 10 * MB, 0, 3_000), Is.False, "given back");
        Assert.That(d.Check(20 * MB + IdleDecommit.MinSurplus - 1, 10 * MB, 0, 4_000), Is.False, "grown, but less than the floor");
        Assert.That(d.Check(250 * MB, 80 * MB, 0, 5_000), Is.False, "grown again while quiet: waits for a quiet spell from now");
        Assert.That(d.Check(250 * MB, 80 * MB, 0, 5_000 + IdleDecommit.QuietMs - 1), Is.False);
        Assert.That(d.Check(250 * MB, 80 * MB, 0, 5_000 + IdleDecommit.QuietMs), Is.True, "asked again without traffic");
        Assert.That(d.Check(250 * MB, 80 * MB, 0, 9_000), Is.False, "a collection that gave nothing back is not asked for again");
    }
}
