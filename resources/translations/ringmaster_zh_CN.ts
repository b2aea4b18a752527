<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ringmaster::Advice</name>
    <message>
        <source>Rank %1 was slow only from step %2 to step %3 (%4 of throughput lost meanwhile): nothing to do unless it lasts.</source>
        <translation>Rank %1 仅在第 %2 步到第 %3 步变慢（期间损失 %4 的吞吐量）：除非持续，否则无需处理。</translation>
    </message>
    <message>
        <source>Only %1 of throughput was lost, between steps %2 and %3: nothing to do unless it lasts or grows.</source>
        <translation>第 %2 步到第 %3 步之间仅损失了 %1 的吞吐量：除非持续或加剧，否则无需处理。</translation>
    </message>
    <message>
        <source>Record the timeline again with HOROVOD_CACHE_CAPACITY=0, so that every tensor is negotiated and carries a ready tick from each rank.</source>
        <translation>请设置 HOROVOD_CACHE_CAPACITY=0 重新记录时间线，使每个张量都经过协商并带有每个 rank 的就绪标记。</translation>
    </message>
    <message>
        <source>Rank %1 was the last to be ready for %2 of the tensors, %3 late at the median: look at what it does before it submits its gradients (data loading, a slower device or host).</source>
        <translation>Rank %1 在 %2 的张量上最后就绪，延迟中位数为 %3：请检查它在提交梯度之前做了什么（数据加载、较慢的设备或主机）。</translation>
    </message>
    <message>
        <source>Rank %1 spends %2 more per step than the others in its data path: check its input pipeline (loader workers, prefetching), its disk and CPU contention on %3.</source>
        <translation>Rank %1 每步在数据路径上比其他 rank 多花 %2：请检查它的输入流水线（加载进程数、预取）、磁盘以及 %3 上的 CPU 争用。</translation>
    </message>
    <message>
        <source>Rank %1 spends %2 more per step than the others in its data path: check its input pipeline (loader workers, prefetching), its disk and CPU contention on its host.</source>
        <translation>Rank %1 每步在数据路径上比其他 rank 多花 %2：请检查它的输入流水线（加载进程数、预取）、磁盘以及其主机上的 CPU 争用。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s all-reduce takes %2 longer per step than the others&apos;: check the network of %3 (link speed, errors, other traffic) and that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface.</source>
        <translation>Rank %1 的 all-reduce 每步比其他 rank 多用 %2：请检查 %3 的网络（链路速率、错误、其他流量），并确认 NCCL_SOCKET_IFNAME 或 GLOO_SOCKET_IFNAME 指向其高速网卡。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s all-reduce takes %2 longer per step than the others&apos;: check its host&apos;s network (link speed, errors, other traffic) and that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface.</source>
        <translation>Rank %1 的 all-reduce 每步比其他 rank 多用 %2：请检查其主机的网络（链路速率、错误、其他流量），并确认 NCCL_SOCKET_IFNAME 或 GLOO_SOCKET_IFNAME 指向其高速网卡。</translation>
    </message>
    <message>
        <source>Rank %1 computes %2 longer per step than the others: look for other processes on the CPUs or GPU of %3 (top, nvidia-smi), a slower or throttled device, or more work given to this rank.</source>
        <translation>Rank %1 每步的计算比其他 rank 多用 %2：请查看 %3 的 CPU 或 GPU 上是否有其他进程（top、nvidia-smi）、设备是否较慢或降频，或者该 rank 是否分到了更多工作。</translation>
    </message>
    <message>
        <source>Rank %1 computes %2 longer per step than the others: look for other processes on its host&apos;s CPUs or GPU (top, nvidia-smi), a slower or throttled device, or more work given to this rank.</source>
        <translation>Rank %1 每步的计算比其他 rank 多用 %2：请查看其主机的 CPU 或 GPU 上是否有其他进程（top、nvidia-smi）、设备是否较慢或降频，或者该 rank 是否分到了更多工作。</translation>
    </message>
    <message>
        <source>Device memory grows %1 per step and reaches the device&apos;s %2 in about %3: look for tensors kept across steps (e.g. appending `loss` instead of `loss.item()`) or outputs kept with their autograd graph.</source>
        <translation>设备内存每步增长 %1，约 %3 后将达到设备的 %2：请查找跨步保留的张量（例如追加 `loss` 而不是 `loss.item()`），或连同自动求导图一起保留的输出。</translation>
    </message>
    <message>
        <source>RSS grows %1 per step and reaches the host&apos;s %2 in about %3: look for tensors kept across steps (e.g. appending `loss` instead of `loss.item()`) and lists or caches that only grow.</source>
        <translation>RSS 每步增长 %1，约 %3 后将达到主机的 %2：请查找跨步保留的张量（例如追加 `loss` 而不是 `loss.item()`），以及只增不减的列表或缓存。</translation>
    </message>
    <message>
        <source>Device memory grows %1 per step (%2 per minute): look for tensors kept across steps (e.g. appending `loss` instead of `loss.item()`) or outputs kept with their autograd graph.</source>
        <translation>设备内存每步增长 %1（每分钟 %2）：请查找跨步保留的张量（例如追加 `loss` 而不是 `loss.item()`），或连同自动求导图一起保留的输出。</translation>
    </message>
    <message>
        <source>RSS grows %1 per step (%2 per minute): look for tensors kept across steps (e.g. appending `loss` instead of `loss.item()`) and lists or caches that only grow.</source>
        <translation>RSS 每步增长 %1（每分钟 %2）：请查找跨步保留的张量（例如追加 `loss` 而不是 `loss.item()`），以及只增不减的列表或缓存。</translation>
    </message>
    <message>
        <source>Rank %1 held the job up for %2 and then went on: if it happens again, look for work that rank does alone (checkpoints, logging, garbage collection) or for a host that pauses (swapping, another job).</source>
        <translation>Rank %1 使作业停顿了 %2 后又继续运行：如果再次发生，请查找只有该 rank 做的工作（检查点、日志、垃圾回收），或会暂停的主机（换页、其他作业）。</translation>
    </message>
    <message>
        <source>No rank has finished a step for %1: get every rank&apos;s stack (py-spy dump, gdb -p) to see where they wait; usually a collective that not every rank reached, or a hung file system or data loader.</source>
        <translation>已有 %1 没有任何 rank 完成一步：请获取每个 rank 的调用栈（py-spy dump、gdb -p）查看它们在哪里等待；通常是并非所有 rank 都到达的集合通信，或卡住的文件系统或数据加载器。</translation>
    </message>
    <message>
        <source>Rank %1 sends nothing, not even heartbeats: see whether its process on %2 is frozen, stopped or swapping (top, dmesg); if it does not come back, stop the job and resume from the last checkpoint.</source>
        <translation>Rank %1 没有发送任何数据，连心跳也没有：请查看它在 %2 上的进程是否冻结、停止或在换页（top、dmesg）；如果无法恢复，请停止作业并从最近的检查点继续。</translation>
    </message>
    <message>
        <source>Rank %1 sends nothing, not even heartbeats: see whether its process is frozen, stopped or swapping (top, dmesg); if it does not come back, stop the job and resume from the last checkpoint.</source>
        <translation>Rank %1 没有发送任何数据，连心跳也没有：请查看它的进程是否冻结、停止或在换页（top、dmesg）；如果无法恢复，请停止作业并从最近的检查点继续。</translation>
    </message>
    <message>
        <source>Rank %1 has not submitted %2 tensors that the others have: every rank must run the same model and compute gradients for every parameter; look for branches that depend on rank-local data, or get its stack (py-spy dump, gdb -p) to see where it is stuck.</source>
        <translation>Rank %1 有 %2 个其他 rank 已提交的张量尚未提交：每个 rank 必须运行相同的模型并为每个参数计算梯度；请查找依赖本 rank 数据的分支，或获取其调用栈（py-spy dump、gdb -p）查看卡在哪里。</translation>
    </message>
    <message>
        <source>Rank %1 stopped calling collectives while %2 ranks wait for it: get its stack (py-spy dump, gdb -p); work that only some ranks do (evaluation, checkpoints, logging) must be done by all of them or kept short.</source>
        <translation>Rank %1 停止调用集合通信，%2 个 rank 正在等待它：请获取其调用栈（py-spy dump、gdb -p）；只有部分 rank 做的工作（评估、检查点、日志）必须由所有 rank 一起做，或保持简短。</translation>
    </message>
    <message>
        <source>Rank %1 is %2 steps behind the others and the job has not progressed for %3: get its stack (py-spy dump, gdb -p) to see where it is stuck.</source>
        <translation>Rank %1 落后其他 rank %2 步，作业已有 %3 没有进展：请获取其调用栈（py-spy dump、gdb -p）查看卡在哪里。</translation>
    </message>
    <message>
        <source>%1 of step time waits on %2 all-reduce ops per step of %3 each: fuse them into fewer, larger ones (ddp: raise --bucket-cap-mb; horovod: raise --fusion-threshold-mb).</source>
        <translation>%1 的步时间在等待每步 %2 次、每次 %3 的 all-reduce：请把它们合并为更少、更大的操作（ddp：调大 --bucket-cap-mb；horovod：调大 --fusion-threshold-mb）。</translation>
    </message>
    <message>
        <source>%1 of step time waits on all-reduce and only %2 of it overlaps with the backward pass: start it earlier with smaller buckets (ddp: lower --bucket-cap-mb; horovod: lower --cycle-time-ms), so that the first gradients travel while later layers still compute.</source>
        <translation>%1 的步时间在等待 all-reduce，其中只有 %2 与反向传播重叠：请用更小的桶让它更早开始（ddp：调小 --bucket-cap-mb；horovod：调小 --cycle-time-ms），使前面的梯度在后面的层仍在计算时就开始传输。</translation>
    </message>
    <message>
        <source>%1 of step time waits on all-reduce at %2 of bus bandwidth, though %3 of it overlaps with compute: the network is the limit; send fewer bytes per sample (a larger batch per rank, gradient accumulation, half-precision gradients) or use a faster interconnect.</source>
        <translation>%1 的步时间在以 %2 的总线带宽等待 all-reduce，尽管其中 %3 已与计算重叠：瓶颈在网络；请减少每个样本发送的字节数（更大的每 rank 批大小、梯度累积、半精度梯度），或使用更快的互连。</translation>
    </message>
    <message>
        <source>Only %1 of step time waits on all-reduce, so rank %2&apos;s slower link costs little: nothing to do unless the job&apos;s communication grows.</source>
        <translation>只有 %1 的步时间在等待 all-reduce，因此 rank %2 较慢的链路代价很小：除非作业的通信量增加，否则无需处理。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s all-reduce runs at %2 against the other ranks&apos; %3: check the network of %4 (link speed, errors, other traffic) and that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface.</source>
        <translation>Rank %1 的 all-reduce 速率为 %2，其他 rank 为 %3：请检查 %4 的网络（链路速率、错误、其他流量），并确认 NCCL_SOCKET_IFNAME 或 GLOO_SOCKET_IFNAME 指向其高速网卡。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s all-reduce runs at %2 against the other ranks&apos; %3: check its host&apos;s network (link speed, errors, other traffic) and that NCCL_SOCKET_IFNAME or GLOO_SOCKET_IFNAME name its fast interface.</source>
        <translation>Rank %1 的 all-reduce 速率为 %2，其他 rank 为 %3：请检查其主机的网络（链路速率、错误、其他流量），并确认 NCCL_SOCKET_IFNAME 或 GLOO_SOCKET_IFNAME 指向其高速网卡。</translation>
    </message>
    <message>
        <source>%1 of %2 all-reduce ops ran at under half the usual bandwidth: occasional congestion on a shared network; if it grows, look at other traffic on the hosts&apos; links.</source>
        <translation>%2 次 all-reduce 中有 %1 次的带宽不到通常的一半：共享网络偶有拥塞；如果加剧，请查看主机链路上的其他流量。</translation>
    </message>
    <message>
        <source>%1 ranks keep %2 of linear scaling from %3: nothing to do.</source>
        <translation>%1 个 rank 保持了相对 %3 个 rank 线性扩展的 %2：无需处理。</translation>
    </message>
    <message>
        <source>%1 ranks reach only %2 of linear scaling from %3: look for what grows with the rank count (exposed all-reduce, a straggler); a larger batch per rank or fewer, larger all-reduce ops hide more of the communication.</source>
        <translation>%1 个 rank 只达到相对 %3 个 rank 线性扩展的 %2：请查找随 rank 数增长的开销（未被隐藏的 all-reduce、掉队者）；更大的每 rank 批大小或更少、更大的 all-reduce 能隐藏更多通信。</translation>
    </message>
    <message>
        <source>Only rank %1 went non-finite: check its share of the data for NaN or infinite values first, then lower the learning rate or clip gradients; resume from a checkpoint taken before step %2.</source>
        <translation>只有 rank %1 出现了非有限值：请先检查它那部分数据中是否有 NaN 或无穷值，再降低学习率或裁剪梯度；从第 %2 步之前的检查点继续。</translation>
    </message>
    <message>
        <source>Lower the learning rate (or warm it up), clip gradients, and check the data for NaN or infinite values; resume from a checkpoint taken before step %1.</source>
        <translation>请降低学习率（或使用预热）、裁剪梯度，并检查数据中是否有 NaN 或无穷值；从第 %1 步之前的检查点继续。</translation>
    </message>
    <message>
        <source>Check the program&apos;s path and permissions on %1, and that the agent there allows the program.</source>
        <translation>请检查 %1 上程序的路径和权限，以及那里的 agent 是否允许运行该程序。</translation>
    </message>
    <message>
        <source>Check the program&apos;s path and permissions on the rank&apos;s host, and that the agent there allows the program.</source>
        <translation>请检查该 rank 所在主机上程序的路径和权限，以及那里的 agent 是否允许运行该程序。</translation>
    </message>
    <message>
        <source>Ringmaster did not send this SIGKILL: most often it is the kernel&apos;s out-of-memory killer. Check `dmesg` on %1 and the rank&apos;s memory chart, then lower the batch size or fix the leak.</source>
        <translation>这个 SIGKILL 不是 Ringmaster 发送的：最常见的是内核的内存不足（OOM）终止程序。请查看 %1 上的 `dmesg` 和该 rank 的内存图，然后减小批大小或修复泄漏。</translation>
    </message>
    <message>
        <source>Ringmaster did not send this SIGKILL: most often it is the kernel&apos;s out-of-memory killer. Check `dmesg` on the rank&apos;s host and its memory chart, then lower the batch size or fix the leak.</source>
        <translation>这个 SIGKILL 不是 Ringmaster 发送的：最常见的是内核的内存不足（OOM）终止程序。请查看该 rank 所在主机上的 `dmesg` 和它的内存图，然后减小批大小或修复泄漏。</translation>
    </message>
    <message>
        <source>%1 is a crash in native code: rank %2&apos;s last log lines and its core dump (coredumpctl gdb) say where; run again with the same seed to see whether it repeats.</source>
        <translation>%1 表示本机代码崩溃：rank %2 的最后几行日志和核心转储（coredumpctl gdb）会指出位置；用相同的随机种子再运行一次，看是否重现。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s log (Logs page, rank %1) holds the error that made it exit with code %2: fix it and run again.</source>
        <translation>Rank %1 的日志（日志页，rank %1）中有导致其以退出码 %2 退出的错误：修复后再运行。</translation>
    </message>
    <message>
        <source>Nothing to fix in training: the profiler recorded events longer than the trace itself, most often because it stopped before they ended. Record the trace again if you need their true length.</source>
        <translation>训练本身无需修复：性能分析器记录的事件比整个追踪还长，通常是因为它在事件结束前就停止了。如果需要这些事件的真实时长，请重新记录追踪。</translation>
    </message>
    <message>
        <source>Rank %1 stalled and every rank was started again from the last checkpoint: if it stalls again at the same step, look at what that step does on rank %1 (its data, a collective only some ranks reach); if not, at its host (swapping, another job).</source>
        <translation>rank %1 停滞后，所有 rank 已从最近的检查点重新启动：如果它在同一步再次停滞，请查看该步在 rank %1 上做了什么（它的数据、只有部分 rank 会到达的集合通信）；如果没有，请检查它所在的主机（换页、其他作业）。</translation>
    </message>
    <message>
        <source>Check that the agent on %1 still runs and that the host answers on the network; once it is back, a new run can use all hosts again.</source>
        <translation>请检查 %1 上的代理是否仍在运行、该主机在网络上是否有响应；恢复之后，新的运行即可再次使用全部主机。</translation>
    </message>
    <message>
        <source>Nothing to fix in training: the run history could not take these records, most often because the disk holding it was full. Free space there, or keep the history elsewhere with --store, before the next run.</source>
        <translation>训练本身无需修正：运行历史未能接收这些记录，最常见的原因是保存它的磁盘已满。请在下次运行之前释放该处的空间，或用 --store 将运行历史保存到别处。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s records stop without its end: it was killed, crashed, or %2 went down. The launcher&apos;s or scheduler&apos;s log of the rank and `dmesg` on %2 (the out-of-memory killer) say which.</source>
        <translation>rank %1 的记录在结束之前中断：它被终止、崩溃了，或者 %2 宕机了。该 rank 的启动器或调度器日志以及 %2 上的 `dmesg`（内存不足终止程序）会说明是哪一种。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s records stop without its end: it was killed, crashed, or its host went down. The launcher&apos;s or scheduler&apos;s log of the rank and `dmesg` on its host (the out-of-memory killer) say which.</source>
        <translation>rank %1 的记录在结束之前中断：它被终止、崩溃了，或者它所在的主机宕机了。该 rank 的启动器或调度器日志以及其主机上的 `dmesg`（内存不足终止程序）会说明是哪一种。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s program imports Horovod, which is not installed where it ran: run it with `ringmaster run --horovod ...` on Ringmaster&apos;s Horovod-compatible layer over torch.distributed (no Horovod or MPI needed), or install Horovod on its host.</source>
        <translation>rank %1 的程序导入了 Horovod，但它运行的地方没有安装 Horovod：用 `ringmaster run --horovod ...` 在 Ringmaster 基于 torch.distributed 的 Horovod 兼容层上运行它（无需 Horovod 或 MPI），或者在其主机上安装 Horovod。</translation>
    </message>
    <message>
        <source>Rank %1 was slow from step %2 to step %3, the last one measured (%4 of throughput lost meanwhile), too few steps to tell how long it lasts: %5</source>
        <translation>Rank %1 从第 %2 步到最后测得的第 %3 步一直较慢（期间损失 %4 的吞吐量），步数太少，无法判断会持续多久：%5</translation>
    </message>
    <message>
        <source>Only %1 of throughput was lost, from step %2 to step %3, the last one measured: nothing to do unless it grows.</source>
        <translation>从第 %2 步到最后测得的第 %3 步仅损失了 %1 的吞吐量：除非加剧，否则无需处理。</translation>
    </message>
    <message>
        <source>%1 of step time waits on %2 all-reduce ops per step of %3 each: fuse them into fewer, larger ones (PyTorch DDP: raise its bucket_cap_mb= argument; Horovod: raise HOROVOD_FUSION_THRESHOLD).</source>
        <translation>%1 的步时间在等待每步 %2 次、每次 %3 的 all-reduce：请把它们合并为更少、更大的操作（PyTorch DDP：调大其 bucket_cap_mb= 参数；Horovod：调大 HOROVOD_FUSION_THRESHOLD）。</translation>
    </message>
    <message>
        <source>%1 of step time waits on all-reduce and only %2 of it overlaps with the backward pass: start it earlier with smaller buckets (PyTorch DDP: lower its bucket_cap_mb= argument; Horovod: lower HOROVOD_CYCLE_TIME), so that the first gradients travel while later layers still compute.</source>
        <translation>%1 的步时间在等待 all-reduce，其中只有 %2 与反向传播重叠：请用更小的桶让它更早开始（PyTorch DDP：调小其 bucket_cap_mb= 参数；Horovod：调小 HOROVOD_CYCLE_TIME），使前面的梯度在后面的层仍在计算时就开始传输。</translation>
    </message>
    <message>
        <source>Rank %1&apos;s log (ringmaster show %2 --log %1) holds the error that made it exit with code %3: fix it and run again.</source>
        <translation>rank %1 的日志（ringmaster show %2 --log %1）中有使其以代码 %3 退出的错误：修复后重新运行。</translation>
    </message>
    <message>
        <source>Every rank of a process group must call the same collectives in the same order, with the same op, dtype and number of elements. Look at the call named above for a condition only some ranks meet (rank == 0, a rank-dependent number of batches, a metric reduced on one rank) and make every rank call it, or none, from step %1 on.</source>
        <translation>同一进程组的每个 rank 必须以相同的顺序调用相同的集合通信，op、dtype 和元素数也必须相同。请检查上面指出的调用处是否有只有部分 rank 满足的条件（rank == 0、与 rank 相关的批次数、只在一个 rank 上归约的指标），从第 %1 步起让每个 rank 都调用它，或者都不调用。</translation>
    </message>
    <message>
        <source>The ranks train different models: build the same model on every rank before wrapping it in DistributedDataParallel, with no module added or removed on some ranks only.</source>
        <translation>各 rank 训练的是不同的模型：请在用 DistributedDataParallel 包装之前在每个 rank 上构建相同的模型，不要只在部分 rank 上添加或删除模块。</translation>
    </message>
    <message>
        <source>Replicas should hold the same values. Usual causes: a module added after DistributedDataParallel wrapped the model (its parameters are neither broadcast nor all-reduced: build the whole model first), broadcast_buffers=False with BatchNorm (use SyncBatchNorm or broadcast the buffers), parameters changed outside the optimizer or on one rank only, a custom layer whose tensors are not registered as parameters or buffers (register them). The tensors named above show which part of the model it is.</source>
        <translation>各副本应持有相同的值。常见原因：在 DistributedDataParallel 包装模型之后才添加的模块（其参数既不广播也不做 all-reduce：请先构建完整的模型）；BatchNorm 配合 broadcast_buffers=False（请使用 SyncBatchNorm 或广播缓冲区）；在优化器之外或只在一个 rank 上修改了参数；自定义层的张量没有注册为参数或缓冲区（请注册它们）。上面列出的张量指明了是模型的哪一部分。</translation>
    </message>
    <message>
        <source>A process the program starts itself reports as a rank only with the job&apos;s environment: start ranks with torch.multiprocessing.spawn or keep RINGMASTER_TELEMETRY_SOCKET, RINGMASTER_JOB_ID and RINGMASTER_JOB_SECRET in their environment. A rank the agent refused says why in the program&apos;s output (a wrong secret, a rank number taken twice).</source>
        <translation>程序自己启动的进程只有带着作业的环境变量才会作为 rank 上报：请用 torch.multiprocessing.spawn 启动各 rank，或在其环境中保留 RINGMASTER_TELEMETRY_SOCKET、RINGMASTER_JOB_ID 和 RINGMASTER_JOB_SECRET。被 agent 拒绝的 rank 会在程序输出中说明原因（错误的密钥、重复使用的 rank 编号）。</translation>
    </message>
    <message>
        <source>Rank %1 has been slower than the others from step %2 to step %3, the last one measured, but only by %4 (%5 of throughput lost): too little to act on unless it grows.</source>
        <translation>Rank %1 从第 %2 步到最后测得的第 %3 步一直比其他 rank 慢，但只慢 %4（损失 %5 的吞吐量）：除非继续变慢，否则不必处理。</translation>
    </message>
</context>
<context>
    <name>ringmaster::Comparison</name>
    <message>
        <source>run %1 (%2)</source>
        <translation>运行 %1（%2）</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>%1 on %2 ranks</source>
        <translation>%1（%2 个 rank）</translation>
    </message>
    <message>
        <source>%1 on %2</source>
        <translation>%1（%2 个 rank）</translation>
    </message>
    <message>
        <source>neither run has %1</source>
        <translation>两次运行都没有%1</translation>
    </message>
    <message>
        <source>%1 has no %2</source>
        <translation>%1 没有%2</translation>
    </message>
    <message>
        <source>step samples</source>
        <translation>步样本</translation>
    </message>
    <message>
        <source>sample counts (a profiler trace has no batch sizes)</source>
        <translation>样本数（性能分析器的 trace 没有批大小）</translation>
    </message>
    <message>
        <source>all-reduce ops</source>
        <translation>all-reduce 操作</translation>
    </message>
    <message>
        <source>memory samples</source>
        <translation>内存样本</translation>
    </message>
    <message>
        <source>%1: step times cannot be compared</source>
        <translation>%1：无法比较步时间</translation>
    </message>
    <message>
        <source>%1: runs of different rank counts compare only by throughput</source>
        <translation>%1：rank 数不同的运行只能按吞吐量比较</translation>
    </message>
    <message>
        <source>%1 has %2% higher throughput than %3 (95% CI %4% to %5%)</source>
        <translation>%1 的吞吐量比 %3 高 %2%（95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>%1 has %2% lower throughput than %3 (95% CI %4% to %5%)</source>
        <translation>%1 的吞吐量比 %3 低 %2%（95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>no significant difference in throughput between %1 and %2 (%3%, 95% CI %4% to %5%)</source>
        <translation>%1 与 %2 的吞吐量无显著差异（%3%，95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>%1 is %2% faster than %3 (step time, 95% CI %4% to %5%)</source>
        <translation>%1 比 %3 快 %2%（步时间，95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>%1 is %2% slower than %3 (step time, 95% CI %4% to %5%)</source>
        <translation>%1 比 %3 慢 %2%（步时间，95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>no significant difference in step time between %1 and %2 (%3%, 95% CI %4% to %5%)</source>
        <translation>%1 与 %2 的步时间无显著差异（%3%，95% 置信区间 %4% 至 %5%）</translation>
    </message>
    <message>
        <source>no step samples to compare</source>
        <translation>没有可比较的步样本</translation>
    </message>
    <message>
        <source>all-reduce sizes</source>
        <translation>all-reduce 大小</translation>
    </message>
    <message>
        <source>all-reduce bandwidth</source>
        <translation>all-reduce 带宽</translation>
    </message>
    <message>
        <source>all-reduce times</source>
        <translation>all-reduce 时间</translation>
    </message>
</context>
<context>
    <name>ringmaster::Duration</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 d</source>
        <translation>%1 天</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
</context>
<context>
    <name>ringmaster::Evidence</name>
    <message>
        <source>throughput lost</source>
        <translation>吞吐量损失</translation>
    </message>
    <message>
        <source>others&apos; wait per step</source>
        <translation>其他 rank 每步等待</translation>
    </message>
    <message>
        <source>slower than the median rank by</source>
        <translation>比中位 rank 慢</translation>
    </message>
    <message>
        <source>extra compute per step</source>
        <translation>每步多出的计算时间</translation>
    </message>
    <message>
        <source>extra data loading per step</source>
        <translation>每步多出的数据加载时间</translation>
    </message>
    <message>
        <source>extra all-reduce time per step</source>
        <translation>每步多出的 all-reduce 时间</translation>
    </message>
    <message>
        <source>slow steps</source>
        <translation>慢步数</translation>
    </message>
    <message>
        <source>last slow step</source>
        <translation>最后一个慢步</translation>
    </message>
    <message>
        <source>recovered at step</source>
        <translation>恢复于步</translation>
    </message>
    <message>
        <source>robust score</source>
        <translation>稳健评分</translation>
    </message>
    <message>
        <source>last to be ready</source>
        <translation>最后就绪占比</translation>
    </message>
    <message>
        <source>median lateness</source>
        <translation>延迟中位数</translation>
    </message>
    <message>
        <source>complete negotiations</source>
        <translation>完整协商次数</translation>
    </message>
    <message>
        <source>negotiations</source>
        <translation>协商次数</translation>
    </message>
    <message>
        <source>growth per step</source>
        <translation>每步增长</translation>
    </message>
    <message>
        <source>growth per minute</source>
        <translation>每分钟增长</translation>
    </message>
    <message>
        <source>time to full</source>
        <translation>距占满</translation>
    </message>
    <message>
        <source>limit</source>
        <translation>上限</translation>
    </message>
    <message>
        <source>memory at the last step</source>
        <translation>最后一步的内存</translation>
    </message>
    <message>
        <source>growth per step, 95 % interval from</source>
        <translation>每步增长 95% 区间下限</translation>
    </message>
    <message>
        <source>growth per step, 95 % interval to</source>
        <translation>每步增长 95% 区间上限</translation>
    </message>
    <message>
        <source>fitted memory at step 0</source>
        <translation>拟合的第 0 步内存</translation>
    </message>
    <message>
        <source>fitted up to step</source>
        <translation>拟合截止步</translation>
    </message>
    <message>
        <source>no progress for</source>
        <translation>无进展时长</translation>
    </message>
    <message>
        <source>waited</source>
        <translation>已等待</translation>
    </message>
    <message>
        <source>tensors not submitted</source>
        <translation>未提交的张量数</translation>
    </message>
    <message>
        <source>ranks waiting</source>
        <translation>等待中的 rank 数</translation>
    </message>
    <message>
        <source>steps behind</source>
        <translation>落后步数</translation>
    </message>
    <message>
        <source>went on afterwards</source>
        <translation>之后继续运行</translation>
    </message>
    <message>
        <source>step time waiting on all-reduce</source>
        <translation>等待 all-reduce 的步时间占比</translation>
    </message>
    <message>
        <source>all-reduce overlapped with compute</source>
        <translation>与计算重叠的 all-reduce 占比</translation>
    </message>
    <message>
        <source>bus bandwidth</source>
        <translation>总线带宽</translation>
    </message>
    <message>
        <source>other ranks&apos; bus bandwidth</source>
        <translation>其他 rank 的总线带宽</translation>
    </message>
    <message>
        <source>median bus bandwidth</source>
        <translation>总线带宽中位数</translation>
    </message>
    <message>
        <source>all-reduce ops per step</source>
        <translation>每步 all-reduce 次数</translation>
    </message>
    <message>
        <source>mean all-reduce size</source>
        <translation>all-reduce 平均大小</translation>
    </message>
    <message>
        <source>median all-reduce latency</source>
        <translation>all-reduce 延迟中位数</translation>
    </message>
    <message>
        <source>slow all-reduce ops</source>
        <translation>慢 all-reduce 次数</translation>
    </message>
    <message>
        <source>all-reduce ops</source>
        <translation>all-reduce 次数</translation>
    </message>
    <message>
        <source>signal</source>
        <translation>信号</translation>
    </message>
    <message>
        <source>exit code</source>
        <translation>退出码</translation>
    </message>
    <message>
        <source>last step finished</source>
        <translation>最后完成的步</translation>
    </message>
    <message>
        <source>first step</source>
        <translation>起始步</translation>
    </message>
    <message>
        <source>last finite loss</source>
        <translation>最后一个有限损失值</translation>
    </message>
    <message>
        <source>scaling efficiency</source>
        <translation>扩展效率</translation>
    </message>
    <message>
        <source>throughput, samples/s</source>
        <translation>吞吐量（样本/秒）</translation>
    </message>
    <message>
        <source>baseline throughput, samples/s</source>
        <translation>基准吞吐量（样本/秒）</translation>
    </message>
    <message>
        <source>ranks</source>
        <translation>rank 数</translation>
    </message>
    <message>
        <source>baseline ranks</source>
        <translation>基准 rank 数</translation>
    </message>
    <message>
        <source>clipped events</source>
        <translation>被截断的事件数</translation>
    </message>
    <message>
        <source>longest recorded duration</source>
        <translation>记录的最长时长</translation>
    </message>
    <message>
        <source>restart</source>
        <translation>重启序号</translation>
    </message>
    <message>
        <source>resumed from step</source>
        <translation>恢复起点</translation>
    </message>
    <message>
        <source>ranks from then on</source>
        <translation>此后的 rank 数</translation>
    </message>
    <message>
        <source>records not stored</source>
        <translation>未存储的记录</translation>
    </message>
    <message>
        <source>not stored from step</source>
        <translation>自此步起未存储</translation>
    </message>
    <message>
        <source>others&apos; longer exposed communication per step</source>
        <translation>其他 rank 每步多出的暴露通信时间</translation>
    </message>
    <message>
        <source>place among the step&apos;s collectives</source>
        <translation>在该步集合通信中的位置</translation>
    </message>
    <message>
        <source>elements of the rank&apos;s collective</source>
        <translation>该 rank 集合通信的元素数</translation>
    </message>
    <message>
        <source>elements of the other&apos;s collective</source>
        <translation>另一 rank 集合通信的元素数</translation>
    </message>
    <message>
        <source>tensors that differ</source>
        <translation>不一致的张量</translation>
    </message>
    <message>
        <source>tensors compared</source>
        <translation>比较的张量</translation>
    </message>
    <message>
        <source>last step equal</source>
        <translation>最后一致的步</translation>
    </message>
    <message>
        <source>checked every</source>
        <translation>检查间隔（步）</translation>
    </message>
</context>
<context>
    <name>ringmaster::Finding</name>
    <message>
        <source>rank %1 (%2)</source>
        <translation>rank %1（%2）</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>%1: compute and data time are %2% above the median rank since step %3 (cause: %4); %5</source>
        <translation>%1：自第 %3 步起，计算和数据时间比中位 rank 高 %2%（原因：%4）；%5</translation>
    </message>
    <message>
        <source>%1: all-reduce latency is %2% above the median rank since step %3 (cause: %4); %5</source>
        <translation>%1：自第 %3 步起，all-reduce 延迟比中位 rank 高 %2%（原因：%4）；%5</translation>
    </message>
    <message>
        <source>the others wait %1 ms per step, %2% of throughput lost</source>
        <translation>其他 rank 每步等待 %1 ms，损失 %2% 的吞吐量</translation>
    </message>
    <message>
        <source>%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5</source>
        <translation>%1：自第 %5 步起，%2内存每步增长 %3 MiB（每分钟 %4 MiB）</translation>
    </message>
    <message>
        <source>%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5; %6 memory full in about %7 min</source>
        <translation>%1：自第 %5 步起，%2内存每步增长 %3 MiB（每分钟 %4 MiB）；约 %7 分钟后%6内存将耗尽</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>%1 %2, which ended the run.</source>
        <translation>%1 %2，运行因此结束。</translation>
    </message>
    <message>
        <source>%1 %2, which ended the run.%3</source>
        <translation>%1 %2，运行因此结束。%3</translation>
    </message>
    <message>
        <source>could not start</source>
        <translation>无法启动</translation>
    </message>
    <message>
        <source>could not start (%1)</source>
        <translation>无法启动（%1）</translation>
    </message>
    <message>
        <source>was killed by %1 after step %2</source>
        <translation>在第 %2 步之后被 %1 终止</translation>
    </message>
    <message>
        <source>was killed by %1 before its first step</source>
        <translation>在第一步之前被 %1 终止</translation>
    </message>
    <message>
        <source>exited with code %1 after step %2</source>
        <translation>在第 %2 步之后以退出码 %1 退出</translation>
    </message>
    <message>
        <source>exited with code %1 before its first step</source>
        <translation>在第一步之前以退出码 %1 退出</translation>
    </message>
    <message>
        <source> Its last error line: &quot;%1&quot;.</source>
        <translation>它的最后一行错误输出：“%1”。</translation>
    </message>
    <message>
        <source> Rank %1 then failed as well.</source>
        <translation>随后 rank %1 也失败了。</translation>
    </message>
    <message>
        <source> Ranks %1 then failed as well.</source>
        <translation>随后 rank %1 也都失败了。</translation>
    </message>
    <message>
        <source> Its last error line: &quot;%1&quot;. Rank %2 then failed as well.</source>
        <translation>它的最后一行错误输出：“%1”。随后 rank %2 也失败了。</translation>
    </message>
    <message>
        <source> Its last error line: &quot;%1&quot;. Ranks %2 then failed as well.</source>
        <translation>它的最后一行错误输出：“%1”。随后 rank %2 也都失败了。</translation>
    </message>
    <message>
        <source>The loss became %1 at step %2 %3 (the step before: %4): training goes on without learning.</source>
        <translation>第 %2 步时%3的损失变为 %1（前一步为 %4）：训练仍在继续，但已不再学习。</translation>
    </message>
    <message>
        <source>The loss became %1 at step %2 %3 (from the first step): training goes on without learning.</source>
        <translation>第 %2 步时%3的损失变为 %1（从第一步起即如此）：训练仍在继续，但已不再学习。</translation>
    </message>
    <message>
        <source>NaN</source>
        <translation>NaN</translation>
    </message>
    <message>
        <source>infinite</source>
        <translation>无穷大</translation>
    </message>
    <message>
        <source>on every rank</source>
        <translation>所有 rank </translation>
    </message>
    <message>
        <source>on rank %1</source>
        <translation> rank %1 </translation>
    </message>
    <message>
        <source>on ranks %1</source>
        <translation> rank %1 </translation>
    </message>
    <message>
        <source>%1 has not submitted %2; ranks %3 have waited %4 s</source>
        <translation>%1 尚未提交 %2；rank %3 已等待 %4 秒</translation>
    </message>
    <message>
        <source>%1 has not submitted %2 and %3 more; ranks %4 have waited %5 s</source>
        <translation>%1 尚未提交 %2 及另外 %3 个张量；rank %4 已等待 %5 秒</translation>
    </message>
    <message>
        <source>%1; then it went on</source>
        <translation>%1；之后它又继续运行</translation>
    </message>
    <message>
        <source>%1 went silent %2: it %3 (frozen, stopped or out of memory and swapping) while rank %4 waits for it; the job has not progressed for %5 s</source>
        <translation>%1 %2不再发出任何消息：它%3（冻结、停止，或内存不足而在换页），而 rank %4 在等待它；作业已有 %5 秒没有进展</translation>
    </message>
    <message>
        <source>%1 went silent %2: it %3 (frozen, stopped or out of memory and swapping) while ranks %4 wait for it; the job has not progressed for %5 s</source>
        <translation>%1 %2不再发出任何消息：它%3（冻结、停止，或内存不足而在换页），而 rank %4 都在等待它；作业已有 %5 秒没有进展</translation>
    </message>
    <message>
        <source>%1 stopped calling collectives %2: it %3 while rank %4 waits in all-reduce; the job has not progressed for %5 s</source>
        <translation>%1 %2停止调用集合通信：它%3，而 rank %4 在 all-reduce 中等待；作业已有 %5 秒没有进展</translation>
    </message>
    <message>
        <source>%1 stopped calling collectives %2: it %3 while ranks %4 wait in all-reduce; the job has not progressed for %5 s</source>
        <translation>%1 %2停止调用集合通信：它%3，而 rank %4 都在 all-reduce 中等待；作业已有 %5 秒没有进展</translation>
    </message>
    <message>
        <source>after step %1</source>
        <translation>在第 %1 步之后</translation>
    </message>
    <message>
        <source>before its first step</source>
        <translation>在第一步之前</translation>
    </message>
    <message>
        <source>has sent nothing for %1 s</source>
        <translation>已有 %1 秒没有发出任何消息</translation>
    </message>
    <message>
        <source>has been in %1 for %2 s</source>
        <translation>已在 %1 阶段停留 %2 秒</translation>
    </message>
    <message>
        <source>%1 stopped after step %2 while the others finished step %3; the job has not progressed for %4 s</source>
        <translation>%1 停在第 %2 步之后，而其他 rank 已完成第 %3 步；作业已有 %4 秒没有进展</translation>
    </message>
    <message>
        <source>no rank has finished a step for %1 s (all stopped after step %2)</source>
        <translation>已有 %1 秒没有任何 rank 完成一步（全部停在第 %2 步之后）</translation>
    </message>
    <message>
        <source>%1: all-reduce bus bandwidth %2 GB/s, %3% below the other ranks&apos; %4 GB/s</source>
        <translation>%1：all-reduce 总线带宽为 %2 GB/s，比其他 rank 的 %4 GB/s 低 %3%</translation>
    </message>
    <message>
        <source>%1% of step time waits on all-reduce (%2% of all-reduce time overlapped with compute; median bus bandwidth %3 GB/s)</source>
        <translation>%1% 的步时间在等待 all-reduce（%2% 的 all-reduce 时间与计算重叠；总线带宽中位数 %3 GB/s）</translation>
    </message>
    <message>
        <source>%1% of all-reduce ops ran at under half the median bus bandwidth of ops their size</source>
        <translation>%1% 的 all-reduce 操作速率不到同等大小操作总线带宽中位数的一半</translation>
    </message>
    <message>
        <source>Only %1 of %2 negotiations in this timeline carry a ready tick from each of the %3 ranks, too few to tell which rank kept the others waiting (at least %4 are needed). Horovod&apos;s response cache skips negotiation for tensors it has seen: record the timeline with HOROVOD_CACHE_CAPACITY=0 to see every negotiation.</source>
        <translation>此时间线的 %2 次协商中只有 %1 次带有全部 %3 个 rank 的就绪标记，太少，无法判断是哪个 rank 让其他 rank 等待（至少需要 %4 次）。Horovod 的响应缓存会跳过已见过张量的协商：请设置 HOROVOD_CACHE_CAPACITY=0 记录时间线，以看到每一次协商。</translation>
    </message>
    <message>
        <source>Rank %1 was the last to be ready for %2 % of %3 negotiated tensors (a fair share is %4 %), by %5 median: every collective it was late for waited on it.</source>
        <translation>在 %3 个经过协商的张量中，Rank %1 有 %2 % 最后就绪（公平份额为 %4 %），延迟中位数为 %5：它每次迟到，相应的集合通信都在等它。</translation>
    </message>
    <message>
        <source>%1 event has implausible durations (up to %2 in a trace whose events all start within %3): drawn clipped at the trace&apos;s end, each keeps its recorded duration (recorded_dur_ns).</source>
        <translation>%1 个事件的持续时间不合理（最长 %2，而该 trace 的所有事件都在 %3 内开始）：绘制时截断在 trace 结尾，各自保留记录的持续时间（recorded_dur_ns）。</translation>
    </message>
    <message>
        <source>%1 events have implausible durations (up to %2 in a trace whose events all start within %3): drawn clipped at the trace&apos;s end, each keeps its recorded duration (recorded_dur_ns).</source>
        <translation>%1 个事件的持续时间不合理（最长 %2，而该 trace 的所有事件都在 %3 内开始）：绘制时截断在 trace 结尾，各自保留记录的持续时间（recorded_dur_ns）。</translation>
    </message>
    <message>
        <source>scaling efficiency %1%: %2 on %3 ranks reaches %4 samples/s, where linear scaling from %5 on %6 would give %7</source>
        <translation>扩展效率 %1%：%2 在 %3 个 rank 上达到每秒 %4 个样本，而从 %5 在 %6 个 rank 上线性扩展应得 %7</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>exposed communication</source>
        <translation>未被隐藏的通信</translation>
    </message>
    <message>
        <source>readiness</source>
        <translation>就绪顺序</translation>
    </message>
    <message>
        <source>host memory</source>
        <translation>主机内存</translation>
    </message>
    <message>
        <source>device memory</source>
        <translation>设备内存</translation>
    </message>
    <message>
        <source>missing tensors</source>
        <translation>缺少张量</translation>
    </message>
    <message>
        <source>silent</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>no collective</source>
        <translation>未调用集合通信</translation>
    </message>
    <message>
        <source>no progress</source>
        <translation>无进展</translation>
    </message>
    <message>
        <source>diverged</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>failed to start</source>
        <translation>无法启动</translation>
    </message>
    <message>
        <source>killed</source>
        <translation>被信号终止</translation>
    </message>
    <message>
        <source>exit code</source>
        <translation>非零退出码</translation>
    </message>
    <message>
        <source>scaling</source>
        <translation>扩展</translation>
    </message>
    <message>
        <source>implausible durations</source>
        <translation>不合理的持续时间</translation>
    </message>
    <message>
        <source>slurm</source>
        <translation>Slurm</translation>
    </message>
    <message>
        <source>%1 (Slurm job %2: %3)</source>
        <translation>%1（Slurm 作业 %2：%3）</translation>
    </message>
    <message>
        <source>Slurm ended the job at its time limit</source>
        <translation>作业达到时间上限，Slurm 结束了它</translation>
    </message>
    <message>
        <source>Slurm ended the job because one of its nodes failed</source>
        <translation>作业的一个节点出现故障，Slurm 结束了它</translation>
    </message>
    <message>
        <source>Slurm preempted the job for another one</source>
        <translation>Slurm 为另一个作业抢占了它</translation>
    </message>
    <message>
        <source>Slurm killed the job for using more memory than it asked for</source>
        <translation>作业使用的内存超过了申请量，Slurm 终止了它</translation>
    </message>
    <message>
        <source>Slurm could not boot the job&apos;s nodes</source>
        <translation>Slurm 无法启动作业的节点</translation>
    </message>
    <message>
        <source>Slurm ended the job at its deadline</source>
        <translation>作业到达截止时间，Slurm 结束了它</translation>
    </message>
    <message>
        <source>exit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>signal</source>
        <translation>信号</translation>
    </message>
    <message>
        <source>stall</source>
        <translation>停滞</translation>
    </message>
    <message>
        <source>lost host</source>
        <translation>主机丢失</translation>
    </message>
    <message>
        <source>%1 records of this run could not be stored in the run history: what it holds of the run is incomplete.</source>
        <translation>此运行有 %1 条记录未能存入运行历史：其中保存的该运行内容不完整。</translation>
    </message>
    <message>
        <source>records not stored</source>
        <translation>未存储的记录</translation>
    </message>
    <message>
        <source>stopped after step %1 without recording its end</source>
        <translation>在第 %1 步之后停止，没有记录它的结束</translation>
    </message>
    <message>
        <source>stopped before its first step without recording its end</source>
        <translation>在第一步之前停止，没有记录它的结束</translation>
    </message>
    <message>
        <source>horovod missing</source>
        <translation>缺少 Horovod</translation>
    </message>
    <message>
        <source>%1 of %2 %3 (%4)</source>
        <translation>%1（%2 个 %3，%4）</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>From step %1 %2 calls %3, which %4 does not call there; %4 is in %5. The ranks&apos; collectives are out of step.</source>
        <translation>从第 %1 步起，%2 调用了 %3，而 %4 在此处并未调用；%4 正在 %5 中。各 rank 的集合通信已不同步。</translation>
    </message>
    <message>
        <source>From step %1 %2 calls %3 where %4 calls %5. The ranks&apos; collectives are out of step.</source>
        <translation>从第 %1 步起，%2 在 %4 调用 %5 的位置调用了 %3。各 rank 的集合通信已不同步。</translation>
    </message>
    <message>
        <source>From step %1 %2 calls %3, which %4 never calls. The ranks&apos; collectives are out of step.</source>
        <translation>从第 %1 步起，%2 调用了 %3，而 %4 从未调用。各 rank 的集合通信已不同步。</translation>
    </message>
    <message>
        <source>In step %1 %2 called %3 collectives and %4 called %5, or other ones. The ranks&apos; collectives are out of step.</source>
        <translation>在第 %1 步中，%2 调用了 %3 次集合通信，%4 调用了 %5 次（或调用了不同的集合通信）。各 rank 的集合通信已不同步。</translation>
    </message>
    <message>
        <source>From step %1 the replicas differ: %2 of %3 tensors (%4) hold other values %5 than on rank %6.</source>
        <translation>从第 %1 步起副本不一致：%3 个张量中有 %2 个（%4）%5的值与 rank %6 上的不同。</translation>
    </message>
    <message>
        <source>From step %1 the replicas differ: %2 of %3 tensors (%4) hold other values %5 than on rank %6; at step %7 they were equal.</source>
        <translation>从第 %1 步起副本不一致：%3 个张量中有 %2 个（%4）%5的值与 rank %6 上的不同；第 %7 步时它们还一致。</translation>
    </message>
    <message>
        <source>From step %1 the replicas differ: the model %2 has other tensors than on rank %3 (%4).</source>
        <translation>从第 %1 步起副本不一致：%2的模型与 rank %3 上的张量不同（%4）。</translation>
    </message>
    <message>
        <source>out of step</source>
        <translation>不同步</translation>
    </message>
    <message>
        <source>replicas differ</source>
        <translation>副本不一致</translation>
    </message>
    <message>
        <source>other tensors</source>
        <translation>张量不同</translation>
    </message>
    <message>
        <source>Rank %1 sent no telemetry while the others finished %2 steps: its figures and findings are missing.</source>
        <translation>其他 rank 已完成 %2 步，而 rank %1 没有发送任何遥测数据：缺少它的指标和诊断。</translation>
    </message>
    <message>
        <source>Ranks %1 sent no telemetry while the others finished %2 steps: their figures and findings are missing.</source>
        <translation>其他 rank 已完成 %2 步，而 rank %1 没有发送任何遥测数据：缺少它们的指标和诊断。</translation>
    </message>
    <message>
        <source>Rank %1 sent no telemetry while the others finished %2 steps: its figures and findings are missing. The program&apos;s output says: &quot;%3&quot;.</source>
        <translation>其他 rank 已完成 %2 步，而 rank %1 没有发送任何遥测数据：缺少它的指标和诊断。程序输出中写道：“%3”。</translation>
    </message>
    <message>
        <source>Ranks %1 sent no telemetry while the others finished %2 steps: their figures and findings are missing. The program&apos;s output says: &quot;%3&quot;.</source>
        <translation>其他 rank 已完成 %2 步，而 rank %1 没有发送任何遥测数据：缺少它们的指标和诊断。程序输出中写道：“%3”。</translation>
    </message>
    <message>
        <source>no telemetry</source>
        <translation>无遥测</translation>
    </message>
    <message>
        <source>%1: %2 memory grows %3 MiB per step (%4 MiB/min) since step %5; %6 memory full in about %7</source>
        <translation>%1：自第 %5 步起，%2内存每步增长 %3 MiB（每分钟 %4 MiB）；约 %7 后%6内存将耗尽</translation>
    </message>
</context>
<context>
    <name>ringmaster::Host</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>%1</source>
        <translation>%1</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 核</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <source>libtorch %1</source>
        <translation>libtorch %1</translation>
    </message>
    <message>
        <source>python %1</source>
        <translation>python %1</translation>
    </message>
    <message>
        <source>torch %1</source>
        <translation>torch %1</translation>
    </message>
    <message>
        <source>CUDA %1</source>
        <translation>CUDA %1</translation>
    </message>
    <message>
        <source>ringmaster %1</source>
        <translation>ringmaster %1</translation>
    </message>
    <message>
        <source>nothing recorded</source>
        <translation>未记录任何信息</translation>
    </message>
</context>
<context>
    <name>ringmaster::RunOutcome</name>
    <message>
        <source>rank %1 on host %2 %3</source>
        <translation>主机 %2 上的 rank %1 %3</translation>
    </message>
    <message>
        <source>was killed by %1</source>
        <translation>被 %1 终止</translation>
    </message>
    <message>
        <source>exited with code %1</source>
        <translation>以退出码 %1 退出</translation>
    </message>
    <message>
        <source>exited normally</source>
        <translation>正常退出</translation>
    </message>
    <message>
        <source>every rank finished</source>
        <translation>所有 rank 均已完成</translation>
    </message>
    <message>
        <source>stopped on request</source>
        <translation>已按请求停止</translation>
    </message>
    <message>
        <source>left running on its hosts; their agents keep its journal</source>
        <translation>留在其主机上继续运行；各主机的 agent 保留其 journal</translation>
    </message>
    <message>
        <source>rank %1 never reported its exit</source>
        <translation>rank %1 始终未报告其退出</translation>
    </message>
    <message>
        <source>lost host %1: %2</source>
        <translation>与主机 %1 失去联系：%2</translation>
    </message>
    <message>
        <source>lost host %1: its agent has not answered for %2 s</source>
        <translation>与主机 %1 失去联系：其 agent 已 %2 秒未应答</translation>
    </message>
    <message>
        <source>stopped after a stall of %1 s (--stall-timeout-s %1): %2</source>
        <translation>停滞 %1 秒后已停止（--stall-timeout-s %1）：%2</translation>
    </message>
    <message>
        <source>Slurm ended job %1: %2</source>
        <translation>Slurm 结束了作业 %1：%2</translation>
    </message>
    <message>
        <source>no step samples after the warm-up were stored</source>
        <translation>预热之后没有存储任何步样本</translation>
    </message>
    <message>
        <source>restart %1 of %2 after %3</source>
        <translation>第 %1 次重启（共 %2 次），原因：%3</translation>
    </message>
    <message>
        <source>restart %1 of %2 after %3; resumed from step %4</source>
        <translation>第 %1 次重启（共 %2 次），原因：%3；从第 %4 步继续</translation>
    </message>
    <message>
        <source>restart %1 of %2 after %3 on %4 ranks (host %5 gone)</source>
        <translation>第 %1 次重启（共 %2 次），原因：%3；以 %4 个 rank 继续（主机 %5 已丢失）</translation>
    </message>
    <message>
        <source>restart %1 of %2 after %3 on %4 ranks (host %5 gone); resumed from step %6</source>
        <translation>第 %1 次重启（共 %2 次），原因：%3；以 %4 个 rank 继续（主机 %5 已丢失）；从第 %6 步继续</translation>
    </message>
    <message>
        <source>restart %1 of %2 could not start: %3</source>
        <translation>第 %1 次重启（共 %2 次）无法启动：%3</translation>
    </message>
    <message>
        <source>%1 (after 1 restart, --max-restarts %2)</source>
        <translation>%1（已重启 1 次，--max-restarts %2）</translation>
    </message>
    <message>
        <source>%1 (after %2 restarts, --max-restarts %3)</source>
        <translation>%1（已重启 %2 次，--max-restarts %3）</translation>
    </message>
    <message>
        <source>%1; host %2 gone, and the %3 ranks left are fewer than --min-ranks %4</source>
        <translation>%1；主机 %2 已丢失，剩余的 %3 个 rank 少于 --min-ranks %4</translation>
    </message>
    <message>
        <source>stopped on request; host %1 did not confirm within %2 s that its ranks ended: they may still run there</source>
        <translation>已按请求停止；主机 %1 未在 %2 秒内确认其 rank 已结束：它们可能仍在那里运行</translation>
    </message>
</context>
<context>
    <name>ringmaster::Validation</name>
    <message>
        <source>is not UTF-8 text; give paths, names and arguments in UTF-8 (rename a file or folder whose name is in another encoding)</source>
        <translation>不是 UTF-8 文本；请用 UTF-8 给出路径、名称和参数（重命名名称使用其他编码的文件或文件夹）</translation>
    </message>
    <message>
        <source>must be ddp or horovod</source>
        <translation>必须是 ddp 或 horovod</translation>
    </message>
    <message>
        <source>must be gloo or nccl</source>
        <translation>必须是 gloo 或 nccl</translation>
    </message>
    <message>
        <source>must be mlp, cnn, resnet18, resnet50 or a TorchScript file (FILE.pt)</source>
        <translation>必须是 mlp、cnn、resnet18、resnet50 或 TorchScript 文件（FILE.pt）</translation>
    </message>
    <message>
        <source>give the TorchScript file&apos;s path (--model FILE.pt)</source>
        <translation>请给出 TorchScript 文件的路径（--model FILE.pt）</translation>
    </message>
    <message>
        <source>cannot hold a NUL character</source>
        <translation>不能包含 NUL 字符</translation>
    </message>
    <message>
        <source>is only for a TorchScript model; the built-in %1 has none</source>
        <translation>只用于 TorchScript 模型；内置的 %1 没有此项</translation>
    </message>
    <message>
        <source>must be synthetic, fashion-mnist, cifar10 or npy:DIR</source>
        <translation>必须是 synthetic、fashion-mnist、cifar10 或 npy:DIR</translation>
    </message>
    <message>
        <source>npy data needs the folder holding train_x.npy and train_y.npy (--data npy:DIR)</source>
        <translation>npy 数据需要包含 train_x.npy 和 train_y.npy 的文件夹（--data npy:DIR）</translation>
    </message>
    <message>
        <source>must be cross-entropy or mse</source>
        <translation>必须是 cross-entropy 或 mse</translation>
    </message>
    <message>
        <source>mse is for a TorchScript model of your own (--model FILE.pt); the built-in models are classifiers trained with cross-entropy</source>
        <translation>mse 用于你自己的 TorchScript 模型（--model FILE.pt）；内置模型都是用 cross-entropy 训练的分类器</translation>
    </message>
    <message>
        <source>must be from 1 to 4096</source>
        <translation>必须在 1 到 4096 之间</translation>
    </message>
    <message>
        <source>must be above 0 and at most a week (604800 s)</source>
        <translation>必须大于 0 且不超过一周（604800 秒）</translation>
    </message>
    <message>
        <source>must be from 0 (never) to a week (604800 s)</source>
        <translation>必须在 0（从不）到一周（604800 秒）之间</translation>
    </message>
    <message>
        <source>must be -1 (never) or from 0 to 1000000 steps</source>
        <translation>必须为 -1（从不）或 0 到 1000000 步之间</translation>
    </message>
    <message>
        <source>must be from 1 to 65536</source>
        <translation>必须在 1 到 65536 之间</translation>
    </message>
    <message>
        <source>must be sgd or adam</source>
        <translation>必须是 sgd 或 adam</translation>
    </message>
    <message>
        <source>must be a positive number</source>
        <translation>必须是正数</translation>
    </message>
    <message>
        <source>must be in [0, 1)</source>
        <translation>必须在 [0, 1) 之内</translation>
    </message>
    <message>
        <source>give epochs or steps (at least one above 0)</source>
        <translation>请给出轮数或步数（至少一个大于 0）</translation>
    </message>
    <message>
        <source>must be from 1 to 1024</source>
        <translation>必须在 1 到 1024 之间</translation>
    </message>
    <message>
        <source>must be none, fp16 or bf16</source>
        <translation>必须是 none、fp16 或 bf16</translation>
    </message>
    <message>
        <source>must be average or sum</source>
        <translation>必须是 average 或 sum</translation>
    </message>
    <message>
        <source>must be above 0 and at most 4096 MiB</source>
        <translation>必须大于 0 且不超过 4096 MiB</translation>
    </message>
    <message>
        <source>must be from 0 (no fusion) to 4096 MiB</source>
        <translation>必须在 0（不融合）到 4096 MiB 之间</translation>
    </message>
    <message>
        <source>must be above 0 and at most 10000 ms</source>
        <translation>必须大于 0 且不超过 10000 ms</translation>
    </message>
    <message>
        <source>the horovod engine supports none or fp16 (as Horovod&apos;s Compression)</source>
        <translation>horovod 引擎只支持 none 或 fp16（同 Horovod 的 Compression）</translation>
    </message>
    <message>
        <source>must name a host</source>
        <translation>必须给出主机名</translation>
    </message>
    <message>
        <source>must be at least 1</source>
        <translation>必须至少为 1</translation>
    </message>
    <message>
        <source>must be a TCP port (1-65535)</source>
        <translation>必须是 TCP 端口（1-65535）</translation>
    </message>
    <message>
        <source>offer %1 slots for world_size %2</source>
        <translation>只提供了 %1 个槽位，而 world_size 为 %2</translation>
    </message>
    <message>
        <source>rank %1 is outside 0..%2</source>
        <translation>rank %1 超出 0..%2</translation>
    </message>
    <message>
        <source>must be above 0 and at most 600000 ms</source>
        <translation>必须大于 0 且不超过 600000 ms</translation>
    </message>
    <message>
        <source>must be above 0 and at most 1024 MiB</source>
        <translation>必须大于 0 且不超过 1024 MiB</translation>
    </message>
    <message>
        <source>needs checkpoint_dir</source>
        <translation>需要 checkpoint_dir</translation>
    </message>
    <message>
        <source>fault injection is for Ringmaster&apos;s own training, not a program</source>
        <translation>故障注入只用于 Ringmaster 自己的训练，不能用于程序</translation>
    </message>
    <message>
        <source>must name the program to run</source>
        <translation>必须指定要运行的程序</translation>
    </message>
    <message>
        <source>must be an absolute folder, got &apos;%1&apos;</source>
        <translation>必须是绝对路径的文件夹，收到的是“%1”</translation>
    </message>
    <message>
        <source>write NAME=value with a name of letters, digits and &apos;_&apos;, got &apos;%1&apos;</source>
        <translation>请写成 NAME=value，名称只能包含字母、数字和“_”，收到的是“%1”</translation>
    </message>
    <message>
        <source>%1 is set by Ringmaster for every rank and cannot be given</source>
        <translation>%1 由 Ringmaster 为每个 rank 设置，不能自行指定</translation>
    </message>
    <message>
        <source>needs the instrumentation: Ringmaster&apos;s Horovod layer is part of the ringmaster Python package, which an uninstrumented program runs without</source>
        <translation>需要插桩：Ringmaster 的 Horovod 层是 ringmaster Python 包的一部分，而未插桩的程序运行时不带这个包</translation>
    </message>
    <message>
        <source>is only for synthetic data (--data synthetic:CxHxW)</source>
        <translation>仅用于合成数据（--data synthetic:CxHxW）</translation>
    </message>
    <message>
        <source>must be channels x height x width, such as 3x32x32: 1 to 64 channels, sides of 1 to 1024, at most 262144 values a sample</source>
        <translation>须为 通道 x 高 x 宽，如 3x32x32：1 到 64 个通道，边长 1 到 1024，每个样本至多 262144 个值</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::ComparisonModel</name>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>%1 vs %2 (95% CI)</source>
        <translation>%1 对比 %2（95% 置信区间）</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::FindingsModel</name>
    <message>
        <source>Straggler</source>
        <translation>掉队者</translation>
    </message>
    <message>
        <source>Memory leak</source>
        <translation>内存泄漏</translation>
    </message>
    <message>
        <source>Stall</source>
        <translation>停滞</translation>
    </message>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>扩展性</translation>
    </message>
    <message>
        <source>Divergence</source>
        <translation>发散</translation>
    </message>
    <message>
        <source>Crash</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Critical</source>
        <translation>严重</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Since</source>
        <translation>起始</translation>
    </message>
    <message>
        <source>What was found</source>
        <translation>发现的问题</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <source>Collectives out of step</source>
        <translation>集合通信不同步</translation>
    </message>
    <message>
        <source>Replica drift</source>
        <translation>副本漂移</translation>
    </message>
    <message>
        <source>Missing telemetry</source>
        <translation>遥测缺失</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::HostsModel</name>
    <message>
        <source>connecting</source>
        <translation>正在连接</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>This machine (%1)</source>
        <translation>本机（%1）</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Cores</source>
        <translation>核心数</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Backends</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Preflight</source>
        <translation>预检</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::LogModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>输出流</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>内容</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::RanksModel</name>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>exited with code %1</source>
        <translation>已退出，退出码 %1</translation>
    </message>
    <message>
        <source>killed by signal %1</source>
        <translation>被信号 %1 终止</translation>
    </message>
    <message>
        <source>failed to start</source>
        <translation>启动失败</translation>
    </message>
    <message>
        <source>reporting</source>
        <translation>正在上报</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Step (ms)</source>
        <translation>每步（毫秒）</translation>
    </message>
    <message>
        <source>Memory (MiB)</source>
        <translation>内存（MiB）</translation>
    </message>
    <message>
        <source>Compute (ms)</source>
        <translation>计算（毫秒）</translation>
    </message>
    <message>
        <source>Wait (ms)</source>
        <translation>等待（毫秒）</translation>
    </message>
    <message>
        <source>stopped by the agent</source>
        <translation>已被 agent 停止</translation>
    </message>
    <message>
        <source>stopped without its end</source>
        <translation>未记录结束即停止</translation>
    </message>
    <message>
        <source>stopped by the user</source>
        <translation>已由用户停止</translation>
    </message>
    <message>
        <source>stopped: its agent shut down</source>
        <translation>已停止：其代理已关闭</translation>
    </message>
    <message>
        <source>stopped: rank %1 ended first</source>
        <translation>已停止：rank %1 先结束</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::ReportBody</name>
    <message>
        <source>en</source>
        <extracomment>The language of this catalogue as HTML&apos;s lang attribute names it.</extracomment>
        <translation>zh-CN</translation>
    </message>
    <message>
        <source>Ringmaster run report: run %1 %2</source>
        <translation>Ringmaster 运行报告：运行 %1 %2</translation>
    </message>
    <message>
        <source>Status %1 · started %2 · ended %3 · source %4 · written by Ringmaster %5</source>
        <translation>状态：%1 · 开始于 %2 · 结束于 %3 · 来源：%4 · 由 Ringmaster %5 生成</translation>
    </message>
    <message>
        <source>Interrupted import:</source>
        <translation>导入中断：</translation>
    </message>
    <message>
        <source>the import did not finish (the process importing it ended first); this report covers only the part of the trace stored until then.</source>
        <translation>导入未完成（执行导入的进程先结束了）；本报告只涵盖此前已存储的那部分 trace。</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>not measured (no step samples)</source>
        <translation>未测量（没有步样本）</translation>
    </message>
    <message>
        <source>ranks</source>
        <translation>rank 数</translation>
    </message>
    <message>
        <source>steps (every rank)</source>
        <translation>步数（每个 rank）</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>not measured (no sample counts)</source>
        <translation>未测量（没有样本数）</translation>
    </message>
    <message>
        <source>step time mean / p50 / p95</source>
        <translation>步时间 平均 / p50 / p95</translation>
    </message>
    <message>
        <source>phase shares</source>
        <translation>各阶段占比</translation>
    </message>
    <message>
        <source>data %1%, forward %2%, backward %3%, exposed comm %4%, optimizer %5%, other %6%</source>
        <translation>数据 %1%，前向 %2%，反向 %3%，暴露通信 %4%，优化器 %5%，其他 %6%</translation>
    </message>
    <message>
        <source>all-reduce</source>
        <translation>all-reduce</translation>
    </message>
    <message>
        <source>%1 ops, median %2, bus bandwidth %3, overlap %4</source>
        <translation>%1 次操作，中位延迟 %2，总线带宽 %3，重叠 %4</translation>
    </message>
    <message>
        <source>not measured (no all-reduce ops)</source>
        <translation>未测量（没有 all-reduce 操作）</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>peak %1 MiB, steepest growth %2 MiB/step</source>
        <translation>峰值 %1 MiB，最快增长 %2 MiB/步</translation>
    </message>
    <message>
        <source>not measured (no memory samples)</source>
        <translation>未测量（没有内存样本）</translation>
    </message>
    <message>
        <source>final loss</source>
        <translation>最终损失</translation>
    </message>
    <message>
        <source>not measured (no loss reported)</source>
        <translation>未测量（没有报告损失）</translation>
    </message>
    <message>
        <source>findings</source>
        <translation>诊断发现</translation>
    </message>
    <message>
        <source>stored rows</source>
        <translation>存储的行</translation>
    </message>
    <message>
        <source>%1 steps, %2 all-reduce ops, %3 memory samples, %4 timeline events, %5 log lines</source>
        <translation>%1 个步，%2 次 all-reduce 操作，%3 个内存样本，%4 个时间线事件，%5 行日志</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断发现</translation>
    </message>
    <message>
        <source>No stragglers, leaks, stalls or communication problems were found.</source>
        <translation>未发现掉队者、泄漏、停滞或通信问题。</translation>
    </message>
    <message>
        <source>severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>rank</translation>
    </message>
    <message>
        <source>host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>since step</source>
        <translation>起始步</translation>
    </message>
    <message>
        <source>cause</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>what</source>
        <translation>情况</translation>
    </message>
    <message>
        <source>job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>evidence:</source>
        <translation>证据：</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Recommendations</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>%1, %2 (%3):</source>
        <translation>%1，%2（%3）：</translation>
    </message>
    <message>
        <source>Nothing to do: no finding calls for a change.</source>
        <translation>无需操作：没有需要改动的诊断发现。</translation>
    </message>
    <message>
        <source>Comparison</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>%1 against %2</source>
        <translation>%1 对比 %2</translation>
    </message>
    <message>
        <source>metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>unit</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>difference</source>
        <translation>差异</translation>
    </message>
    <message>
        <source>95% CI</source>
        <translation>95% 置信区间</translation>
    </message>
    <message>
        <source>%1 to %2</source>
        <translation>%1 至 %2</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>No charts: this run holds nothing to draw them from (%1).</source>
        <translation>没有图表：此运行没有可用于绘制的数据（%1）。</translation>
    </message>
    <message>
        <source>Left out (%1).</source>
        <translation>未绘制（%1）。</translation>
    </message>
    <message>
        <source>Its %1 timeline events are in the Chrome trace export (--format trace).</source>
        <translation>它的 %1 个时间线事件在 Chrome trace 导出中（--format trace）。</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>各 rank</translation>
    </message>
    <message>
        <source>No per-rank measurements.</source>
        <translation>没有各 rank 的测量数据。</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>comm wait</source>
        <translation>通信等待</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>busbw</source>
        <translation>总线带宽</translation>
    </message>
    <message>
        <source>peak RSS</source>
        <translation>RSS 峰值</translation>
    </message>
    <message>
        <source>RSS slope</source>
        <translation>RSS 斜率</translation>
    </message>
    <message>
        <source>Job configuration</source>
        <translation>作业配置</translation>
    </message>
    <message>
        <source>world size</source>
        <translation>world size</translation>
    </message>
    <message>
        <source>program</source>
        <translation>程序</translation>
    </message>
    <message>
        <source>working folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>instrumented</source>
        <translation>已插桩</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>yes (ringmaster Python package)</source>
        <translation>是（ringmaster Python 包）</translation>
    </message>
    <message>
        <source>horovod layer</source>
        <translation>Horovod 层</translation>
    </message>
    <message>
        <source>yes (Ringmaster&apos;s horovod.torch)</source>
        <translation>是（Ringmaster 的 horovod.torch）</translation>
    </message>
    <message>
        <source>engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>batch size</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>steps / epochs</source>
        <translation>步数 / 轮数</translation>
    </message>
    <message>
        <source>bucket cap</source>
        <translation>桶上限</translation>
    </message>
    <message>
        <source>fusion threshold</source>
        <translation>融合阈值</translation>
    </message>
    <message>
        <source>%1 MiB, cycle %2 ms</source>
        <translation>%1 MiB，周期 %2 ms</translation>
    </message>
    <message>
        <source>compression</source>
        <translation>压缩</translation>
    </message>
    <message>
        <source>tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>host %1</source>
        <translation>主机 %1</translation>
    </message>
    <message>
        <source>(not recorded)</source>
        <translation>（未记录）</translation>
    </message>
    <message>
        <source>Ringmaster report: run %1</source>
        <translation>Ringmaster 报告：运行 %1</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::ReportCharts</name>
    <message>
        <source>min of ranks</source>
        <translation>各 rank 最小值</translation>
    </message>
    <message>
        <source>median of ranks</source>
        <translation>各 rank 中位数</translation>
    </message>
    <message>
        <source>max of ranks</source>
        <translation>各 rank 最大值</translation>
    </message>
    <message>
        <source>Throughput (all ranks)</source>
        <translation>吞吐量（所有 rank）</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Loss (mean over ranks)</source>
        <translation>损失（各 rank 平均）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Test accuracy</source>
        <translation>测试准确率</translation>
    </message>
    <message>
        <source>test accuracy</source>
        <translation>测试准确率</translation>
    </message>
    <message>
        <source>Per-rank throughput</source>
        <translation>各 rank 吞吐量</translation>
    </message>
    <message>
        <source>Compute per step (forward + backward, before waiting)</source>
        <translation>每步计算时间（前向 + 反向，不含等待）</translation>
    </message>
    <message>
        <source>Step phases per rank (mean)</source>
        <translation>每个 rank 的步阶段（平均）</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>rank</translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation>每步 ms</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>exposed comm</source>
        <translation>暴露通信</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>All-reduce latency</source>
        <translation>All-reduce 延迟</translation>
    </message>
    <message>
        <source>ms (mean of the step&apos;s ops)</source>
        <translation>ms（该步各操作的平均）</translation>
    </message>
    <message>
        <source>All-reduce bus bandwidth per rank (median)</source>
        <translation>各 rank 的 All-reduce 总线带宽（中位数）</translation>
    </message>
    <message>
        <source>Memory per rank (RSS) with trend lines</source>
        <translation>每个 rank 的内存（RSS）及趋势线</translation>
    </message>
    <message>
        <source>rank %1 trend (leak)</source>
        <translation>rank %1 趋势（泄漏）</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>run %1</source>
        <translation>运行 %1</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::ReportPages</name>
    <message>
        <source>Ringmaster run %1</source>
        <translation>Ringmaster 运行 %1</translation>
    </message>
    <message>
        <source>page %1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::RunsModel</name>
    <message>
        <source>imported</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Rank 数</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>detached</source>
        <translation>已分离</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断发现</translation>
    </message>
    <message>
        <source>your program</source>
        <translation>你的程序</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::SlurmPartitionsModel</name>
    <message>
        <source>Partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Idle nodes</source>
        <translation>空闲节点</translation>
    </message>
    <message>
        <source>Allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
</context>
<context>
    <name>ringmaster::console::TuneSearch</name>
    <message>
        <source>the default&apos;s trial has no measured throughput: nothing to compare against</source>
        <translation>默认配置的试验没有测得吞吐量：没有可比较的基准</translation>
    </message>
    <message>
        <source>no trial but the default&apos;s was measured: nothing to recommend</source>
        <translation>除默认配置外没有测得任何试验：无可推荐</translation>
    </message>
    <message>
        <source>the default is as good as any trial: it measured the highest throughput (run %1); the next best, %2, measured %3 (run %4)</source>
        <translation>默认配置不逊于任何试验：它测得的吞吐量最高（运行 %1）；次优的 %2 测得 %3（运行 %4）</translation>
    </message>
    <message>
        <source>best: %1, %2 over the default (run %3 against run %4)</source>
        <translation>最佳：%1，相对默认配置 %2（运行 %3 对比运行 %4）</translation>
    </message>
    <message>
        <source>the default is as good as any trial: the best, %1, measured %2 over the default, within the noise (run %3 against run %4)</source>
        <translation>默认配置不逊于任何试验：最佳的 %1 相对默认配置测得 %2，在噪声之内（运行 %3 对比运行 %4）</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::ChartExport</name>
    <message>
        <source>Save as PNG…</source>
        <translation>另存为 PNG…</translation>
    </message>
    <message>
        <source>Save as SVG…</source>
        <translation>另存为 SVG…</translation>
    </message>
    <message>
        <source>Save chart as PNG</source>
        <translation>将图表保存为 PNG</translation>
    </message>
    <message>
        <source>Save chart as SVG</source>
        <translation>将图表保存为 SVG</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>SVG drawings (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>Chart not saved</source>
        <translation>图表未保存</translation>
    </message>
    <message>
        <source>The chart has no size yet; show it first.</source>
        <translation>图表尚无尺寸，请先显示它。</translation>
    </message>
    <message>
        <source>Could not write %1: check the folder and its permissions.</source>
        <translation>无法写入 %1：请检查文件夹及其权限。</translation>
    </message>
    <message>
        <source>Could not write %1: is the disk full?</source>
        <translation>无法写入 %1：磁盘是否已满？</translation>
    </message>
    <message>
        <source>Saved by Ringmaster</source>
        <translation>由 Ringmaster 保存</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::CommunicationForm</name>
    <message>
        <source>Communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> 毫秒</translation>
    </message>
    <message>
        <source>Reuse agreed responses</source>
        <translation>复用已商定的响应</translation>
    </message>
    <message>
        <source>DDP bucket cap</source>
        <translation>DDP 桶大小上限</translation>
    </message>
    <message>
        <source>Horovod fusion threshold</source>
        <translation>Horovod 融合阈值</translation>
    </message>
    <message>
        <source>Horovod cycle time</source>
        <translation>Horovod 周期时间</translation>
    </message>
    <message>
        <source>Horovod response cache</source>
        <translation>Horovod 响应缓存</translation>
    </message>
    <message>
        <source>Gradient compression</source>
        <translation>梯度压缩</translation>
    </message>
    <message>
        <source>Horovod reduction</source>
        <translation>Horovod 归约方式</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::ComparePage</name>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Tick two or more runs, then Compare.</source>
        <translation>勾选两个或更多运行，然后点击“对比”。</translation>
    </message>
    <message>
        <source>Throughput (whole job)</source>
        <translation>吞吐量（整个作业）</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Step time (mean over ranks)</source>
        <translation>步时间（各 rank 均值）</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>Step phases per rank, run by run (mean ms)</source>
        <translation>各运行中每个 rank 的步阶段（平均毫秒）</translation>
    </message>
    <message>
        <source>Tick at least two runs.</source>
        <translation>请至少勾选两个运行。</translation>
    </message>
    <message numerus="yes">
        <source>Loading %n run(s)…</source>
        <translation>
            <numerusform>正在加载 %n 个运行…</numerusform>
        </translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>exposed comm</source>
        <translation>暴露通信</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>#%1 r%2</source>
        <translation>#%1 r%2</translation>
    </message>
    <message>
        <source>1 rank</source>
        <translation>1 个 rank</translation>
    </message>
    <message>
        <source>%1 ranks</source>
        <translation>%1 个 rank</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>%1 · %2 (%3)</source>
        <translation>%1 · %2（%3）</translation>
    </message>
    <message>
        <source>Tick two or more runs; the first you tick is the baseline</source>
        <translation>勾选两个或更多运行；最先勾选的为基线</translation>
    </message>
    <message>
        <source>%1 · baseline</source>
        <translation>%1 · 基线</translation>
    </message>
    <message>
        <source>Baseline: %1</source>
        <translation>基线：%1</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::DashboardPage</name>
    <message>
        <source>No run selected. Launch one or open a past run from Runs.</source>
        <translation>未选择运行。请启动一个运行，或在“运行记录”中打开以往的运行。</translation>
    </message>
    <message>
        <source>Highlight one rank in every chart</source>
        <translation>在所有图表中突出显示一个 rank</translation>
    </message>
    <message>
        <source>All-reduce per rank</source>
        <translation>按 rank 显示 All-reduce</translation>
    </message>
    <message>
        <source>All-reduce per bucket</source>
        <translation>按桶显示 All-reduce</translation>
    </message>
    <message>
        <source>Stop run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>Record timeline</source>
        <translation>记录时间线</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>All-reduce latency</source>
        <translation>All-reduce 延迟</translation>
    </message>
    <message>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <source>All-reduce bus bandwidth</source>
        <translation>All-reduce 总线带宽</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/秒</translation>
    </message>
    <message>
        <source>Memory per rank (RSS)</source>
        <translation>每个 rank 的内存（RSS）</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>exposed comm</source>
        <translation>暴露通信</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>rank %1 trend</source>
        <translation>rank %1 趋势</translation>
    </message>
    <message>
        <source>memory limit</source>
        <translation>内存上限</translation>
    </message>
    <message>
        <source>total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>bucket %1</source>
        <translation>桶 %1</translation>
    </message>
    <message>
        <source>All ranks</source>
        <translation>所有 rank</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>Rank %1</translation>
    </message>
    <message numerus="yes">
        <source> · and %n more host(s)</source>
        <translation>
            <numerusform> · 以及另外 %n 台主机</numerusform>
        </translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>unnamed run</source>
        <translation>未命名运行</translation>
    </message>
    <message>
        <source>Run %1 · %2 · live</source>
        <translation>运行 %1 · %2 · 实时</translation>
    </message>
    <message>
        <source>Run %1 · %2 · %3</source>
        <translation>运行 %1 · %2 · %3</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source> · ETA %1</source>
        <translation> · 预计剩余 %1</translation>
    </message>
    <message>
        <source>Step phases per rank (mean ms)</source>
        <translation>每个 rank 的步阶段（平均毫秒）</translation>
    </message>
    <message>
        <source>restart</source>
        <translation>重启</translation>
    </message>
    <message>
        <source> · finishing</source>
        <translation> · 即将完成</translation>
    </message>
    <message>
        <source>no steps yet</source>
        <translation>尚无训练步</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>loss, mean over ranks</source>
        <translation>损失（各 rank 平均）</translation>
    </message>
    <message>
        <source>test accuracy (%)</source>
        <translation>测试准确率（%）</translation>
    </message>
    <message>
        <source>fastest, median, slowest, named</source>
        <translation>最快、中位、最慢、被指出的</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::FaultsForm</name>
    <message>
        <source>Fault injection (for demos and tests)</source>
        <translation>故障注入（用于演示和测试）</translation>
    </message>
    <message>
        <source>RANK:MS[@STEP], e.g. 2:50</source>
        <translation>RANK:毫秒[@步]，例如 2:50</translation>
    </message>
    <message>
        <source>RANK:MB, e.g. 1:2</source>
        <translation>RANK:MB，例如 1:2</translation>
    </message>
    <message>
        <source>RANK:STEP</source>
        <translation>RANK:步</translation>
    </message>
    <message>
        <source>Straggler</source>
        <translation>掉队者</translation>
    </message>
    <message>
        <source>Memory leak</source>
        <translation>内存泄漏</translation>
    </message>
    <message>
        <source>Crash</source>
        <translation>崩溃</translation>
    </message>
    <message>
        <source>Hang</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>Fault injection: %1</source>
        <translation>故障注入：%1</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::FindingsPage</name>
    <message>
        <source>Findings appear here as diagnosis detects them. Select one to see its evidence.</source>
        <translation>诊断发现的问题会显示在这里。选择一项即可查看其证据。</translation>
    </message>
    <message>
        <source>Cause: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>What to do:</source>
        <translation>建议：</translation>
    </message>
    <message>
        <source>Show on Dashboard</source>
        <translation>在仪表板中显示</translation>
    </message>
    <message>
        <source>Highlight the finding&apos;s rank and chart its steps to the end of the run</source>
        <translation>突出显示该发现的 rank，并绘制其步骤直至运行结束</translation>
    </message>
    <message>
        <source>Show in Timeline</source>
        <translation>在时间线中显示</translation>
    </message>
    <message>
        <source>Show its logs</source>
        <translation>显示其日志</translation>
    </message>
    <message>
        <source>Show logs of rank %1</source>
        <translation>显示 rank %1 的日志</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::HeatmapView</name>
    <message>
        <source>Compute time per rank and step: a slow rank is a bright stripe. Click a row to select the rank.</source>
        <translation>每个 rank 每一步的计算时间：慢的 rank 会显示为一条亮带。点击一行即可选中该 rank。</translation>
    </message>
    <message>
        <source>Compute time per rank and step</source>
        <translation>每个 rank 每一步的计算时间</translation>
    </message>
    <message>
        <source>No steps yet</source>
        <translation>尚无训练步</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::HostsPage</name>
    <message>
        <source>host or host:port of a ringmaster-agent</source>
        <translation>ringmaster-agent 的主机或 主机:端口</translation>
    </message>
    <message>
        <source>file holding the agent&apos;s token (needed off loopback)</source>
        <translation>保存 agent 令牌的文件（非回环地址时必需）</translation>
    </message>
    <message>
        <source>CA certificate (PEM) when the agent uses TLS</source>
        <translation>agent 使用 TLS 时的 CA 证书（PEM）</translation>
    </message>
    <message>
        <source>Add host</source>
        <translation>添加主机</translation>
    </message>
    <message>
        <source>Check again</source>
        <translation>重新检查</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Token file</source>
        <translation>令牌文件</translation>
    </message>
    <message>
        <source>TLS CA</source>
        <translation>TLS CA</translation>
    </message>
    <message>
        <source>Slurm cluster</source>
        <translation>Slurm 集群</translation>
    </message>
    <message>
        <source>Launch with &quot;Submit to Slurm&quot; to run a job on these nodes.</source>
        <translation>在“启动”页勾选“提交到 Slurm”即可在这些节点上运行作业。</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::LaunchPage</name>
    <message>
        <source>e.g. resnet18 ddp baseline</source>
        <translation>例如：resnet18 ddp 基线</translation>
    </message>
    <message>
        <source>packaged default</source>
        <translation>安装包默认位置</translation>
    </message>
    <message>
        <source>this machine; or host1:4,host2:4</source>
        <translation>本机；或 host1:4,host2:4</translation>
    </message>
    <message>
        <source>Use connected hosts</source>
        <translation>使用已连接的主机</translation>
    </message>
    <message>
        <source>Connect to remote agents on the Hosts page first</source>
        <translation>请先在“主机”页连接远程 agent</translation>
    </message>
    <message>
        <source>Record from the start</source>
        <translation>从一开始就记录</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据目录</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Rank 数</translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Copy command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Load preset</source>
        <translation>加载预设</translation>
    </message>
    <message>
        <source>Save as preset…</source>
        <translation>另存为预设…</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Presets</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>The same job from a terminal:</source>
        <translation>在终端中运行同一作业：</translation>
    </message>
    <message>
        <source>Save preset</source>
        <translation>保存预设</translation>
    </message>
    <message>
        <source>Preset name</source>
        <translation>预设名称</translation>
    </message>
    <message>
        <source>Hosts: %1</source>
        <translation>主机：%1</translation>
    </message>
    <message>
        <source>Ready to launch.</source>
        <translation>可以启动。</translation>
    </message>
    <message>
        <source>Ringmaster model</source>
        <translation>Ringmaster 模型</translation>
    </message>
    <message>
        <source>Your program</source>
        <translation>您自己的程序</translation>
    </message>
    <message>
        <source>Train with:</source>
        <translation>训练方式：</translation>
    </message>
    <message>
        <source>Arguments: %1</source>
        <translation>参数：%1</translation>
    </message>
    <message>
        <source>Program: %1</source>
        <translation>程序：%1</translation>
    </message>
    <message>
        <source>Working folder: %1</source>
        <translation>工作目录：%1</translation>
    </message>
    <message>
        <source>Environment, line %1: %2</source>
        <translation>环境变量第 %1 行：%2</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从不</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Stop the job, as failed, once it has made no progress for this long while a stall finding names why (--stall-timeout-s)</source>
        <translation>作业停滞（有停滞发现说明原因）且在这段时间内没有进展时，停止作业并记为失败（--stall-timeout-s）</translation>
    </message>
    <message>
        <source>Stop when stalled for</source>
        <translation>停滞多久后停止</translation>
    </message>
    <message>
        <source>Backend: %1</source>
        <translation>后端：%1</translation>
    </message>
    <message>
        <source>Slurm: %1</source>
        <translation>Slurm：%1</translation>
    </message>
    <message>
        <source>no GPU</source>
        <translation>没有 GPU</translation>
    </message>
    <message>
        <source>its worker was built without %1</source>
        <translation>其 worker 构建时未包含 %1</translation>
    </message>
    <message>
        <source>this machine: %1</source>
        <translation>本机：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 cannot run on %2</source>
        <translation>%1 无法在 %2 上运行</translation>
    </message>
    <message>
        <source>Slurm runs: %1 (%2: the job&apos;s id, chosen at launch)</source>
        <translation>Slurm 将运行：%1（%2：作业 ID，启动时确定）</translation>
    </message>
    <message>
        <source>Submit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Tune…</source>
        <translation>调优…</translation>
    </message>
    <message>
        <source>Search this job&apos;s bucket cap or fusion threshold × cycle time with short runs</source>
        <translation>用几次短运行搜索此作业的桶上限或融合阈值 × 周期时间</translation>
    </message>
    <message>
        <source>none</source>
        <translation>不重启</translation>
    </message>
    <message>
        <source>When a rank fails, stop the others and start every rank again from the last checkpoint, at most this many times (--max-restarts)</source>
        <translation>某个 rank 失败时，停止其他 rank，从最近的检查点重新启动全部 rank，最多重启这么多次（--max-restarts）</translation>
    </message>
    <message>
        <source>every rank</source>
        <translation>全部 rank</translation>
    </message>
    <message>
        <source>With restarts: when a host is gone at a restart, go on with the ranks of the hosts that remain if they are at least this many (--min-ranks)</source>
        <translation>允许重启时：重启时若有主机已失联，只要其余主机上的 rank 不少于此数，就用它们继续（--min-ranks）</translation>
    </message>
    <message>
        <source>Max restarts</source>
        <translation>最多重启次数</translation>
    </message>
    <message>
        <source>Min ranks</source>
        <translation>最少 rank 数</translation>
    </message>
    <message>
        <source>Tune runs Ringmaster&apos;s own models; your program sets its own bucket size</source>
        <translation>调优只运行 Ringmaster 自带的模型；你的程序自行设定桶大小</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::LiveRun</name>
    <message>
        <source>the run is not running</source>
        <translation>运行未在进行中</translation>
    </message>
    <message>
        <source>Slurm job %1 was cancelled before it started</source>
        <translation>Slurm 作业 %1 在开始前已被取消</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::LogsPage</name>
    <message>
        <source>All ranks</source>
        <translation>所有 rank</translation>
    </message>
    <message>
        <source>Search the lines</source>
        <translation>搜索日志</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>Rank %1</source>
        <translation>Rank %1</translation>
    </message>
    <message>
        <source>Show all lines</source>
        <translation>显示所有行</translation>
    </message>
    <message numerus="yes">
        <source>No lines from rank %1 yet; %n line(s) from other ranks.</source>
        <translation>
            <numerusform>rank %1 尚无输出行；其他 rank 共 %n 行。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No line of rank %1 matches &quot;%2&quot;; %n line(s) in all.</source>
        <translation>
            <numerusform>rank %1 没有匹配“%2”的行；共 %n 行。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No line matches &quot;%1&quot;; %n line(s) in all.</source>
        <translation>
            <numerusform>没有匹配“%1”的行；共 %n 行。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::MainWindow</name>
    <message>
        <source>Ringmaster</source>
        <translation>Ringmaster</translation>
    </message>
    <message>
        <source>Hosts</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>仪表盘</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断发现</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Logs</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Run history: %1</source>
        <translation>运行记录：%1</translation>
    </message>
    <message>
        <source>Stopping the run…</source>
        <translation>正在停止运行…</translation>
    </message>
    <message>
        <source>A run is in progress</source>
        <translation>有运行正在进行</translation>
    </message>
    <message>
        <source>The run keeps training on its hosts when the console closes; their agents keep its journal. Leave it running, or stop it?</source>
        <translation>关闭控制台后，运行会在其主机上继续训练，各主机的 agent 会保留其日志。让它继续运行，还是停止它？</translation>
    </message>
    <message>
        <source>Leave it running</source>
        <translation>继续运行</translation>
    </message>
    <message>
        <source>Stop it</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>The run on this machine stops when the console closes. Stop it and close?</source>
        <translation>关闭控制台时，本机上的运行会停止。要停止运行并关闭吗？</translation>
    </message>
    <message>
        <source>Opening run %1…</source>
        <translation>正在打开运行 %1…</translation>
    </message>
    <message>
        <source>A run is already in progress; stop it before launching another.</source>
        <translation>已有运行正在进行；请先停止它再启动新的运行。</translation>
    </message>
    <message>
        <source>Run %1 (%2) is running on this machine.</source>
        <translation>运行 %1（%2）正在本机上运行。</translation>
    </message>
    <message>
        <source>Run %1 (%2) is running on %3.</source>
        <translation>运行 %1（%2）正在 %3 上运行。</translation>
    </message>
    <message>
        <source>The run could not start: %1</source>
        <translation>运行无法启动：%1</translation>
    </message>
    <message>
        <source>Connection to %1 lost — reconnecting…</source>
        <translation>与 %1 的连接已断开，正在重新连接…</translation>
    </message>
    <message numerus="yes">
        <source>Reconnected to %1; backfilled %n record(s).</source>
        <translation>
            <numerusform>已重新连接到 %1；补齐了 %n 条记录。</numerusform>
        </translation>
    </message>
    <message>
        <source>Recording the timeline on every rank.</source>
        <translation>正在所有 rank 上记录时间线。</translation>
    </message>
    <message>
        <source>Timeline recording stopped.</source>
        <translation>时间线记录已停止。</translation>
    </message>
    <message>
        <source>Could not turn the timeline %1: %2</source>
        <translation>无法%1时间线记录：%2</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message numerus="yes">
        <source>Starting %n rank(s) on this machine…</source>
        <translation>
            <numerusform>正在本机上启动 %n 个 rank…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Starting %n rank(s)…</source>
        <translation>
            <numerusform>正在启动 %n 个 rank…</numerusform>
        </translation>
    </message>
    <message>
        <source>The run ended: %1 (%2).</source>
        <translation>运行已结束：%1（%2）。</translation>
    </message>
    <message>
        <source>Submitted Slurm job %1: %2</source>
        <translation>已提交 Slurm 作业 %1：%2</translation>
    </message>
    <message numerus="yes">
        <source>Submitting %n rank(s) to Slurm…</source>
        <translation>
            <numerusform>正在向 Slurm 提交 %n 个 rank…</numerusform>
        </translation>
    </message>
    <message>
        <source>The Launch form now has %1.</source>
        <translation>启动表单现已设为 %1。</translation>
    </message>
    <message>
        <source>Could not read the timeline: %1</source>
        <translation>无法读取时间线：%1</translation>
    </message>
    <message>
        <source>Stop the run?</source>
        <translation>停止运行？</translation>
    </message>
    <message>
        <source>Stop run %1? Every rank stops training now; what the run recorded so far stays in the history.</source>
        <translation>停止运行 %1？所有 rank 将立即停止训练；运行至今记录的内容保留在历史中。</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>Keep training</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Import traces…</source>
        <translation>导入跟踪(&amp;I)…</translation>
    </message>
    <message>
        <source>Import a &amp;folder of traces…</source>
        <translation>导入跟踪文件夹(&amp;F)…</translation>
    </message>
    <message>
        <source>&amp;Export report…</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Ringmaster</source>
        <translation>关于 Ringmaster(&amp;A)</translation>
    </message>
    <message>
        <source>About Ringmaster</source>
        <translation>关于 Ringmaster</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Ringmaster %1&lt;/h3&gt;&lt;p&gt;A console for data-parallel training: launch ranks on your hosts or through Slurm, watch every rank live, and find the straggler, the leak, the stall and the crash.&lt;/p&gt;&lt;p&gt;The same runs from a terminal: &lt;code&gt;ringmaster run -np 4 …&lt;/code&gt;, &lt;code&gt;ringmaster show&lt;/code&gt;, &lt;code&gt;ringmaster compare&lt;/code&gt;, &lt;code&gt;ringmaster report&lt;/code&gt;.&lt;/p&gt;&lt;p&gt;Free software under the GNU General Public License, version 3 or later.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Ringmaster %1&lt;/h3&gt;&lt;p&gt;数据并行训练的控制台：在你的主机上或通过 Slurm 启动各个 rank，实时查看每个 rank，找出掉队者、内存泄漏、停滞和崩溃。&lt;/p&gt;&lt;p&gt;在终端中同样可以运行：&lt;code&gt;ringmaster run -np 4 …&lt;/code&gt;、&lt;code&gt;ringmaster show&lt;/code&gt;、&lt;code&gt;ringmaster compare&lt;/code&gt;、&lt;code&gt;ringmaster report&lt;/code&gt;。&lt;/p&gt;&lt;p&gt;自由软件，依据 GNU 通用公共许可证第 3 版或更新版本发布。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <source>Ringmaster speaks %1 from its next start.</source>
        <translation>Ringmaster 下次启动时将使用%1。</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::ProgramForm</name>
    <message>
        <source>Your program</source>
        <translation>您自己的程序</translation>
    </message>
    <message>
        <source>an executable, e.g. /usr/bin/python3</source>
        <translation>可执行文件，例如 /usr/bin/python3</translation>
    </message>
    <message>
        <source>e.g. train.py --epochs 3 --note &quot;two words&quot;</source>
        <translation>例如：train.py --epochs 3 --note &quot;two words&quot;</translation>
    </message>
    <message>
        <source>one NAME=value a line, e.g. OMP_NUM_THREADS=2</source>
        <translation>每行一个 NAME=value，例如 OMP_NUM_THREADS=2</translation>
    </message>
    <message>
        <source>Instrument with the ringmaster Python package</source>
        <translation>用 ringmaster Python 包插桩</translation>
    </message>
    <message>
        <source>Step times, all-reduces and memory of a PyTorch program, with no change to it. Off: its output, exit and memory only.</source>
        <translation>无需修改 PyTorch 程序即可测量其步时间、all-reduce 和内存。关闭时：只记录其输出、退出状态和内存。</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Program</source>
        <translation>程序</translation>
    </message>
    <message>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Every rank runs the program with torchrun&apos;s environment (RANK, WORLD_SIZE, MASTER_ADDR, …). A remote agent runs only the programs it was started to allow (&lt;nobr&gt;--allow-program&lt;/nobr&gt;).</source>
        <translation>每个 rank 都带着 torchrun 的环境变量（RANK、WORLD_SIZE、MASTER_ADDR 等）运行该程序。远程 agent 只运行其启动时允许的程序（&lt;nobr&gt;--allow-program&lt;/nobr&gt;）。</translation>
    </message>
    <message>
        <source>Program to run</source>
        <translation>要运行的程序</translation>
    </message>
    <message>
        <source>each host&apos;s agent&apos;s own folder</source>
        <translation>各主机上 agent 自己的目录</translation>
    </message>
    <message>
        <source>this folder: %1</source>
        <translation>当前目录：%1</translation>
    </message>
    <message>
        <source>Horovod script (horovod.torch on Ringmaster&apos;s layer)</source>
        <translation>Horovod 脚本（在 Ringmaster 的兼容层上运行 horovod.torch）</translation>
    </message>
    <message>
        <source>For a script that imports horovod.torch as hvd: its ranks get Ringmaster&apos;s Horovod-compatible layer on torch.distributed, with no Horovod or MPI installed. Where Horovod is installed, it is used instead. Needs the instrumentation.</source>
        <translation>用于 import horovod.torch as hvd 的脚本：其各 rank 使用 Ringmaster 基于 torch.distributed 的 Horovod 兼容层，无需安装 Horovod 或 MPI。已安装 Horovod 的地方则改用已安装的 Horovod。需要插桩。</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::ReportDialog</name>
    <message>
        <source>Export report of run %1</source>
        <translation>导出运行 %1 的报告</translation>
    </message>
    <message>
        <source>HTML (one self-contained file)</source>
        <translation>HTML（单个自包含文件）</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>CSV (every stored metric)</source>
        <translation>CSV（所有已存储指标）</translation>
    </message>
    <message>
        <source>Chrome trace (Perfetto)</source>
        <translation>Chrome trace（Perfetto）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>run ids to compare with, e.g. 3, 5 (HTML and PDF)</source>
        <translation>要对比的运行编号，例如 3, 5（HTML 和 PDF）</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>对比对象</translation>
    </message>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Choose a file to write.</source>
        <translation>请选择要写入的文件。</translation>
    </message>
    <message>
        <source>Compare with: “%1” is not a run id.</source>
        <translation>对比对象：“%1”不是运行编号。</translation>
    </message>
    <message>
        <source>Writing %1…</source>
        <translation>正在写入 %1…</translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n row(s)</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n event(s)</source>
        <translation>
            <numerusform>%n 个事件</numerusform>
        </translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Saved %1 (%2)</source>
        <translation>已保存 %1（%2）</translation>
    </message>
    <message>
        <source>A4</source>
        <translation>A4</translation>
    </message>
    <message>
        <source>Letter</source>
        <translation>Letter（美国信纸）</translation>
    </message>
    <message>
        <source>The PDF&apos;s pages, and the HTML&apos;s when it is printed</source>
        <translation>PDF 的页面，以及打印 HTML 时的页面</translation>
    </message>
    <message>
        <source>Paper</source>
        <translation>纸张</translation>
    </message>
    <message>
        <source>HTML reports (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <source>Chrome traces (*.json)</source>
        <translation>Chrome 跟踪 (*.json)</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::RunHistory</name>
    <message numerus="yes">
        <source>%n run(s) in %1</source>
        <translation>
            <numerusform>%1 中有 %n 个运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation>正在导入 %1…</translation>
    </message>
    <message>
        <source>Imported %1: %2 events.</source>
        <translation>已导入 %1：%2 个事件。</translation>
    </message>
    <message>
        <source>Imported %1 as one run of %2 ranks (%3): %4 events, %5 steps.</source>
        <translation>已将 %1 导入为一个 %2 个 rank 的运行（%3）：%4 个事件，%5 个步骤。</translation>
    </message>
    <message>
        <source>A file was cut short; what was whole is kept.</source>
        <translation>有文件不完整，已保留完整的部分。</translation>
    </message>
    <message>
        <source>Imported %1 as one run of %2 ranks from their record files: %3 records, %4 steps.</source>
        <translation>已将 %1 从各 rank 的记录文件导入为一次包含 %2 个 rank 的运行：%3 条记录，%4 步。</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) stopped without recording their end.</source>
        <translation>
            <numerusform>%n 个 rank 未记录结束即停止。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::RunsPage</name>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Tag…</source>
        <translation>添加标签…</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Rename run</source>
        <translation>重命名运行</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Tag run</source>
        <translation>为运行添加标签</translation>
    </message>
    <message>
        <source>Tag</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Delete run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete run %1 and all its data?</source>
        <translation>删除运行 %1 及其全部数据？</translation>
    </message>
    <message>
        <source>Filter by name, status, engine, tag, finding…</source>
        <translation>按名称、状态、引擎、标签、诊断发现筛选…</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::SeriesChart</name>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>all ranks</source>
        <translation>所有 rank</translation>
    </message>
    <message>
        <source>middle half</source>
        <translation>中间一半</translation>
    </message>
    <message>
        <source>median</source>
        <translation>中位数</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::SlurmForm</name>
    <message>
        <source>Submit to Slurm</source>
        <translation>提交到 Slurm</translation>
    </message>
    <message>
        <source>Slurm allocates the nodes and starts one agent on each; the ranks are placed by the allocation (ringmaster run --slurm)</source>
        <translation>由 Slurm 分配节点并在每个节点上启动一个代理；各 rank 按分配结果放置（ringmaster run --slurm）</translation>
    </message>
    <message>
        <source>as Slurm decides</source>
        <translation>由 Slurm 决定</translation>
    </message>
    <message>
        <source>the cluster&apos;s default</source>
        <translation>集群的默认分区</translation>
    </message>
    <message>
        <source>e.g. 01:00:00; the partition&apos;s limit</source>
        <translation>例如 01:00:00；默认为分区的上限</translation>
    </message>
    <message>
        <source>your default account</source>
        <translation>你的默认账户</translation>
    </message>
    <message>
        <source>the default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>e.g. a100</source>
        <translation>例如 a100</translation>
    </message>
    <message>
        <source>e.g. gpu:4</source>
        <translation>例如 gpu:4</translation>
    </message>
    <message>
        <source>more sbatch options, e.g. --mem=8G --exclusive</source>
        <translation>更多 sbatch 选项，例如 --mem=8G --exclusive</translation>
    </message>
    <message>
        <source>Where each job&apos;s folder goes (its token, script and agents&apos; endpoints), on a filesystem the nodes share</source>
        <translation>每个作业文件夹（令牌、脚本和代理端点）的存放位置，须位于各节点共享的文件系统上</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>Time limit</source>
        <translation>时间限制</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <source>QoS</source>
        <translation>QoS</translation>
    </message>
    <message>
        <source>Constraint</source>
        <translation>约束</translation>
    </message>
    <message>
        <source>GRES</source>
        <translation>GRES</translation>
    </message>
    <message>
        <source>More sbatch options</source>
        <translation>更多 sbatch 选项</translation>
    </message>
    <message>
        <source>Job folders</source>
        <translation>作业文件夹</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::TimelinePage</name>
    <message>
        <source>Rows by rank (compute and communication)</source>
        <translation>按 rank 分行（计算与通信）</translation>
    </message>
    <message>
        <source>Rows by tensor (Horovod view, ready ticks)</source>
        <translation>按张量分行（Horovod 视图，就绪标记）</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>Import timeline…</source>
        <translation>导入时间线…</translation>
    </message>
    <message>
        <source>Export visible range…</source>
        <translation>导出可见范围…</translation>
    </message>
    <message>
        <source>Save the visible range as Chrome trace JSON (Perfetto, chrome://tracing)</source>
        <translation>将可见范围保存为 Chrome trace JSON（Perfetto、chrome://tracing）</translation>
    </message>
    <message>
        <source>Save image</source>
        <translation>保存图像</translation>
    </message>
    <message>
        <source>Save the timeline as shown as a PNG or SVG image</source>
        <translation>将当前显示的时间线保存为 PNG 或 SVG 图像</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Click an event to see its details.</source>
        <translation>点击一个事件即可查看详情。</translation>
    </message>
    <message>
        <source>Shift-drag across the timeline to measure a range.</source>
        <translation>按住 Shift 在时间线上拖动以测量一个范围。</translation>
    </message>
    <message>
        <source>Rank / phase</source>
        <translation>Rank / 阶段</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件数</translation>
    </message>
    <message>
        <source>Import timeline</source>
        <translation>导入时间线</translation>
    </message>
    <message>
        <source>Export visible range</source>
        <translation>导出可见范围</translation>
    </message>
    <message>
        <source>Chrome trace (*.json)</source>
        <translation>Chrome trace (*.json)</translation>
    </message>
    <message>
        <source>Saved &lt;a href=&quot;file://%1&quot;&gt;%1&lt;/a&gt;</source>
        <translation>已保存 &lt;a href=&quot;file://%1&quot;&gt;%1&lt;/a&gt;</translation>
    </message>
    <message>
        <source>Could not export: %1</source>
        <translation>无法导出：%1</translation>
    </message>
    <message>
        <source>rank %1, lane %2, step %3</source>
        <translation>rank %1，通道 %2，第 %3 步</translation>
    </message>
    <message>
        <source>start %1, duration %2</source>
        <translation>开始 %1，持续 %2</translation>
    </message>
    <message>
        <source>last rank ready: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>最后就绪的 rank：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
    <message>
        <source>Open per-rank PyTorch profiler traces (several files or their folder), a Horovod timeline or a Chrome trace JSON file</source>
        <translation>打开每个 rank 一个文件的 PyTorch profiler trace（多个文件或其所在文件夹）、Horovod 时间线或 Chrome trace JSON 文件</translation>
    </message>
    <message>
        <source>Trace files…</source>
        <translation>Trace 文件…</translation>
    </message>
    <message>
        <source>Folder of per-rank traces…</source>
        <translation>每个 rank 一个 trace 的文件夹…</translation>
    </message>
    <message>
        <source>Zoom to selection</source>
        <translation>缩放到选区</translation>
    </message>
    <message>
        <source>Show the selected range, or the selected event, across the view (F)</source>
        <translation>让选中的范围或事件铺满视图（F）</translation>
    </message>
    <message>
        <source>Find by name…</source>
        <translation>按名称查找…</translation>
    </message>
    <message>
        <source>An event&apos;s name or a row&apos;s name (a tensor, a lane); Enter finds the next (Ctrl+F)</source>
        <translation>事件名称或行名称（张量、通道）；按 Enter 查找下一个（Ctrl+F）</translation>
    </message>
    <message>
        <source>Previous match</source>
        <translation>上一个匹配</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
        <source>W S: zoom · A D: pan · wheel: zoom · drag: pan · shift-drag: select a range · F: zoom to selection · Esc: clear it · click: details</source>
        <translation>W S：缩放 · A D：平移 · 滚轮：缩放 · 拖动：平移 · Shift+拖动：选择范围 · F：缩放到选区 · Esc：清除选区 · 点击：详情</translation>
    </message>
    <message>
        <source>No match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <source>not reported</source>
        <translation>未报告</translation>
    </message>
    <message>
        <source>%1 (%2 before the start)</source>
        <translation>%1（开始前 %2）</translation>
    </message>
    <message>
        <source>%1 (%2 after the start)</source>
        <translation>%1（开始后 %2）</translation>
    </message>
    <message>
        <source>%1 running in all within the range, %2 of it counted here</source>
        <translation>范围内共运行 %1，其中 %2 计入此行</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Each moment of a rank counts once: for compute first, then for the most recently started activity; a rank&apos;s shares, idle included, add up to 100 %</source>
        <translation>每个 rank 的每一时刻只计一次：先计入计算，其次计入最近开始的活动；一个 rank 的各项占比（含空闲）合计为 100 %</translation>
    </message>
    <message>
        <source>Range %1 – %2 (%3)</source>
        <translation>范围 %1 – %2（%3）</translation>
    </message>
    <message>
        <source>Traces and record files (*.json *.json.gz *.trace *.rmrecs);;All files (*)</source>
        <translation>Trace 和记录文件 (*.json *.json.gz *.trace *.rmrecs);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Import a folder of per-rank traces or record files</source>
        <translation>导入每个 rank 一个 trace 或记录文件的文件夹</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::TimelineView</name>
    <message>
        <source>rank %1 · %2</source>
        <translation>rank %1 · %2</translation>
    </message>
    <message>
        <source>No tensor activity (the Horovod engine records one row per tensor).</source>
        <translation>没有张量活动（Horovod 引擎为每个张量记录一行）。</translation>
    </message>
    <message>
        <source>No timeline events. Turn on timeline recording, or import a timeline.</source>
        <translation>没有时间线事件。请开启时间线记录，或导入一个时间线。</translation>
    </message>
    <message numerus="yes">
        <source>+%n more</source>
        <translation>
            <numerusform>另有 %n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>rank ready</source>
        <translation>rank 就绪</translation>
    </message>
    <message>
        <source>last rank ready</source>
        <translation>最后就绪的 rank</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>comm</source>
        <translation>通信</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::TrainingForm</name>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>use steps</source>
        <translation>按步数</translation>
    </message>
    <message>
        <source>use epochs</source>
        <translation>按轮数</translation>
    </message>
    <message>
        <source>no checkpoints</source>
        <translation>不保存检查点</translation>
    </message>
    <message>
        <source>only at the end</source>
        <translation>仅在结束时</translation>
    </message>
    <message>
        <source>Batch size per rank</source>
        <translation>每个 rank 的批大小</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Momentum</source>
        <translation>动量</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Gradient accumulation</source>
        <translation>梯度累积</translation>
    </message>
    <message>
        <source>Checkpoint folder</source>
        <translation>检查点目录</translation>
    </message>
    <message>
        <source>Checkpoint every (steps)</source>
        <translation>检查点间隔（步）</translation>
    </message>
</context>
<context>
    <name>ringmaster::gui::TuneDialog</name>
    <message>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <source>DDP bucket cap (--bucket-cap-mb)</source>
        <translation>DDP 桶上限（--bucket-cap-mb）</translation>
    </message>
    <message>
        <source>Horovod fusion threshold × cycle time (--fusion-threshold-mb, --cycle-time-ms)</source>
        <translation>Horovod 融合阈值 × 周期时间（--fusion-threshold-mb、--cycle-time-ms）</translation>
    </message>
    <message>
        <source>Runs to make at most, the default&apos;s included; from 6 on, successive halving: the better half of each round runs again twice as long</source>
        <translation>最多运行的次数（含默认配置）；6 次起采用逐次减半：每轮较好的一半以两倍长度再运行</translation>
    </message>
    <message>
        <source>tune-&lt;date&gt;-&lt;time&gt;</source>
        <translation>tune-&lt;日期&gt;-&lt;时间&gt;</translation>
    </message>
    <message>
        <source>The trials are stored runs tagged tune:&lt;name&gt;</source>
        <translation>各次试验作为运行保存，标签为 tune:&lt;名称&gt;</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Trials</source>
        <translation>试验次数</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>vs default [95 % CI]</source>
        <translation>相对默认 [95 % 置信区间]</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Throughput per trial; whiskers: 95 % interval against the default&apos;s run</source>
        <translation>每次试验的吞吐量；须线：相对默认配置运行的 95 % 区间</translation>
    </message>
    <message>
        <source>trials</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>the default</source>
        <translation>默认配置</translation>
    </message>
    <message>
        <source>trial</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Use in the Launch form</source>
        <translation>用于启动表单</translation>
    </message>
    <message>
        <source>%1 × %2 steps</source>
        <translation>%1 × %2 步</translation>
    </message>
    <message>
        <source>Session %1: %2 in rounds of %3; each trial is a run tagged %4 in %5</source>
        <translation>会话 %1：%2，轮次为 %3；每次试验是 %5 中标签为 %4 的一次运行</translation>
    </message>
    <message>
        <source>Running trial 1…</source>
        <translation>正在运行试验 1…</translation>
    </message>
    <message>
        <source>Stopping the running trial…</source>
        <translation>正在停止运行中的试验…</translation>
    </message>
    <message>
        <source>%1 (the default)</source>
        <translation>%1（默认配置）</translation>
    </message>
    <message>
        <source>(the default)</source>
        <translation>（默认配置）</translation>
    </message>
    <message>
        <source>Trial %1 ended (%2); running trial %3…</source>
        <translation>试验 %1 已结束（%2）；正在运行试验 %3…</translation>
    </message>
    <message>
        <source>Trial %1 ended (%2).</source>
        <translation>试验 %1 已结束（%2）。</translation>
    </message>
    <message>
        <source>The session ended early: %1</source>
        <translation>会话提前结束：%1</translation>
    </message>
    <message>
        <source>Stopped; trials that ended: %1.</source>
        <translation>已停止；已结束的试验：%1 次。</translation>
    </message>
    <message>
        <source>The session ended; trials: %1.</source>
        <translation>会话已结束；试验：%1 次。</translation>
    </message>
    <message>
        <source>From the trials that ended: %1</source>
        <translation>根据已结束的试验：%1</translation>
    </message>
    <message>
        <source>Sets %1 in the Launch form</source>
        <translation>在启动表单中设置 %1</translation>
    </message>
    <message>
        <source>No setting beat the default beyond its interval</source>
        <translation>没有设置在区间之外胜过默认配置</translation>
    </message>
</context>
</TS>
