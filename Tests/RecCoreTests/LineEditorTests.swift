import Testing

@testable import RecCore

@Suite("Line editing at the name prompt")
struct LineEditorTests {
    @Test func movingAndInsertingInTheMiddle() {
        var line = LineEditor()
        line.insert("tand")
        line.home()
        line.insert("s")
        line.end()
        line.insert("up")
        #expect(line.text == "standup")
        line.left()
        line.left()
        line.insert("-")
        #expect(line.text == "stand-up" && line.cursor == 6 && line.columnsAfterCursor == 2)
        line.right()
        line.right()
        line.right()
        #expect(line.cursor == 8)
    }

    @Test func deleting() {
        var line = LineEditor("team standup notes")
        line.deleteWordBackward()
        #expect(line.text == "team standup ")
        line.deleteWordBackward()
        #expect(line.text == "team ")
        line.insert("x")
        line.home()
        line.delete()
        #expect(line.text == "eam x")
        line.end()
        line.left()
        line.left()
        line.deleteToStart()
        #expect(line.text == " x" && line.cursor == 0)
        line.backspace()
        #expect(line.text == " x")
        line.end()
        line.backspace()
        #expect(line.text == " ")
    }

    @Test func edgesDoNothing() {
        var line = LineEditor()
        line.left()
        line.backspace()
        line.delete()
        line.deleteWordBackward()
        line.deleteToStart()
        line.right()
        #expect(line == LineEditor())
    }
}
