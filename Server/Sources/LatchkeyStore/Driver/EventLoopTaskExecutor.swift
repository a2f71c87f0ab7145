import NIOCore

/// Runs a task's jobs on one NIO event loop: a PostgreSQL transaction runs on its connection's
/// loop, so a statement is written and its answer taken up on the thread that reads the socket.
///
/// Without it every statement crosses threads twice (the task writes to the channel from the
/// cooperative pool, the answer wakes a pool thread again); with it, a transaction crosses
/// once in and once out, however many statements it has. The work between statements (decoding
/// rows, the store's decisions) is short and never blocks, as code on an event loop must be.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
