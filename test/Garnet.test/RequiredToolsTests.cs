// RequiredTools (test/Shared): the rule that turns a missing external program into a failure, and the lookup.
namespace Garnet.test;

[TestFixture]
public class RequiredToolsTests
{
    [TestCase(null, null, false)]
    [TestCase("", "", false)]
    [TestCase("0", null, false)]
    [TestCase("1", null, true)]
    [TestCase("1", "", true)]
    [TestCase("1", "false", true)]
    [TestCase("1", "0", true)]
    [TestCase("1", "true", false)]
    [TestCase("1", "1", false)]
    [TestCase("1", "yes", false)]
    public void AMissingProgramIsSkippedOnlyWithTheOptOutAndNeverUnderCi(string? optOut, string? ci, bool maySkip) =>
        Assert.That(RequiredTools.MaySkipWith(optOut, ci), Is.EqualTo(maySkip));

    [Test]
    public void FindLooksInThePathAndTheUsualDirectories()
    {
        Assert.That(RequiredTools.Find("sh"), Does.EndWith("/sh"));
        Assert.That(RequiredTools.Find("garnet-no-such-program"), Is.Null);
    }
}
