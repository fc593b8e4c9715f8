package io.pigeon.sqs;

import io.pigeon.queue.PlacedQueue;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The parameters of {@link SqsMessageStore#DELETE_SHARED} for the receipts of several DeleteMessage(Batch) requests,
 * and the reading of its answer back into each request's own: whether its queue was found and which of its messages
 * went. Its own class so that the store keeps its SQL and the bookkeeping of one shared statement stays in one place.
 */
record SharedReceiptDelete(List<SqsMessageStore.ReceiptsInQueue> requests, List<PlacedQueue> queues, int[] ordinals) {

    static SharedReceiptDelete of(List<SqsMessageStore.ReceiptsInQueue> requests) {
        List<PlacedQueue> queues = new ArrayList<>();
        // Equal handles are the same queue (every request here is on the same database).
        Map<PlacedQueue, Integer> byQueue = new HashMap<>();
        int[] ordinals = new int[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            PlacedQueue queue = requests.get(i).queue();
            ordinals[i] = byQueue.computeIfAbsent(queue, key -> {
                queues.add(queue);
                return queues.size();
            });
        }
        return new SharedReceiptDelete(requests, queues, ordinals);
    }

    /** $1/$2: the distinct queues; $3 to $6: every receipt with its queue's ordinal, message, claim and count. */
    Tuple parameters() {
        int count =
                requests.stream().mapToInt(request -> request.receipts().size()).sum();
        Integer[] queueOrdinals = new Integer[count];
        Long[] ids = new Long[count];
        UUID[] claims = new UUID[count];
        Integer[] receiveCounts = new Integer[count];
        int next = 0;
        for (int i = 0; i < requests.size(); i++) {
            for (Receipt receipt : requests.get(i).receipts()) {
                queueOrdinals[next] = ordinals[i];
                ids[next] = receipt.messageId();
                claims[next] = receipt.claimId();
                receiveCounts[next++] = receipt.receiveCount();
            }
        }
        return Tuple.tuple()
                .addArrayOfString(queues.stream().map(PlacedQueue::project).toArray(String[]::new))
                .addArrayOfString(queues.stream().map(PlacedQueue::storedName).toArray(String[]::new))
                .addArrayOfInteger(queueOrdinals)
                .addArrayOfLong(ids)
                .addArrayOfUUID(claims)
                .addArrayOfInteger(receiveCounts);
    }

    /** Each request's answer from the statement's row (a message named by several requests went for the first). */
    List<SqsMessageStore.Deleted> answers(Row row) {
        Set<Integer> found = new HashSet<>(List.of(row.getArrayOfIntegers("queues_found")));
        Integer[] deletedQueues = row.getArrayOfIntegers("deleted_queues");
        Long[] deletedIds = row.getArrayOfLongs("deleted");
        Set<DeletedRow> deleted = new HashSet<>();
        for (int i = 0; i < deletedIds.length; i++) {
            deleted.add(new DeletedRow(deletedQueues[i], deletedIds[i]));
        }
        List<SqsMessageStore.Deleted> answers = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            Set<Long> own = new HashSet<>();
            for (Receipt receipt : requests.get(i).receipts()) {
                if (deleted.remove(new DeletedRow(ordinals[i], receipt.messageId()))) {
                    own.add(receipt.messageId());
                }
            }
            answers.add(new SqsMessageStore.Deleted(found.contains(ordinals[i]), own));
        }
        return answers;
    }

    private record DeletedRow(int queueOrdinal, long id) {}
}
